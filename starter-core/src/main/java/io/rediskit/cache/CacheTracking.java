package io.rediskit.cache;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.push.PushMessage;
import io.lettuce.core.codec.ByteArrayCodec;
import io.rediskit.support.BoundedStop;
import io.rediskit.support.KeyNaming;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.scheduling.TaskScheduler;

/**
 * Server-assisted client-side caching for the near caches of one manager: one dedicated Lettuce connection, made
 * from the application's client, with {@code CLIENT TRACKING ON BCAST PREFIX <prefix>cache:} and the opening
 * brace of the hash tag, whose RESP3 {@code invalidate} push messages name every entry key that changed on the
 * server, whoever changed it (these caches, another application, {@code redis-cli}, an expiry, an eviction); a
 * {@code FLUSHDB} or {@code FLUSHALL} sends a null invalidation, which drops every entry.
 * <p>
 * <b>Whether it can run</b> is decided once, when the connection is first made, never from an error's text: the
 * client is a {@link RedisClient} (standalone or Sentinel; on Redis Cluster tracking is per node, and the caches
 * use pub/sub), the connection negotiated RESP3 ({@code HELLO 3} accepted: the client's protocol is not pinned to
 * RESP2 and the server is Redis 6 or later), and the server accepted {@code CLIENT TRACKING} (a command error
 * otherwise). While Redis cannot be reached the question stays open and is asked again every heartbeat.
 * <p>
 * <b>Trust</b>, as with {@link CacheSignals}: the near caches answer only while an invalidation sent now would
 * reach this instance. Each connection the driver makes is a new session, in which nothing is tracked until
 * {@code CLIENT TRACKING ON} was answered: a disconnect (the connection dropped, {@code CLIENT KILL}, a server
 * restart, a Sentinel failover once Sentinel closes the former master's connections) ends trust and starts a
 * new {@link #epoch()} (entries stored before it are never served again), and trust comes back with the reply
 * of {@code CLIENT TRACKING ON} sent on the reconnected connection, at once from the driver's reconnect event and
 * again every heartbeat until it is answered. A
 * connection that stays up but carries nothing (the server paused, a half-open link) is noticed by a {@code PING}
 * sent on it every heartbeat: invalidations and replies share the connection, in order, so a {@code PING}'s reply
 * proves that every invalidation of a write the server ran before it has arrived. Two unanswered {@code PING}s, or
 * none answered for three heartbeats when a read asks, end trust; the next reply on the same session restores it.
 */
final class CacheTracking implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(CacheTracking.class);

	private static final Pattern RESP = Pattern.compile("\\bresp=(\\d)");

	/** Whether tracking runs here: open until the connection was first made. */
	enum Availability {

		UNKNOWN, AVAILABLE, UNAVAILABLE

	}

	/** A cache's near cache, told of its invalidations on the driver's thread: must not block. */
	interface Handler {

		/** @param id the entry's key as the cache names it, or {@code null} for every entry */
		void invalidated(@Nullable String id);

	}

	private final LettuceConnectionFactory connectionFactory;

	/**
	 * The prefix and area of every key, then the hash tag's opening brace: every entry key of every cache starts
	 * with it.
	 */
	private final String keyPrefix;

	private final Duration heartbeat;

	private final long staleAfterNanos;

	private final @Nullable TaskScheduler givenScheduler;

	private final Map<String, Handler> handlers = new ConcurrentHashMap<>();

	private final List<Runnable> trustLost = new CopyOnWriteArrayList<>();

	private final ReentrantLock lifecycle = new ReentrantLock();

	private @Nullable StatefulRedisConnection<byte[], byte[]> connection;

	private @Nullable AbstractRedisClient client;

	private @Nullable RedisConnectionStateListener stateListener;

	private @Nullable ScheduledExecutorService ownScheduler;

	private @Nullable ScheduledFuture<?> heartbeatTask;

	private volatile Availability availability = Availability.UNKNOWN;

	/** One per connection the driver made: a reply sent in an older session proves nothing about this one. */
	private final AtomicLong session = new AtomicLong();

	/** The session in which the server answered {@code CLIENT TRACKING ON}; another when it has not yet. */
	private volatile long trackingSession = -1;

	/** The session whose {@code CLIENT TRACKING ON} was sent and not yet answered: sent once per session. */
	private final AtomicLong enablingSession = new AtomicLong(-1);

	private volatile boolean trusted;

	private volatile long epoch;

	private volatile long lastPongNanos = System.nanoTime();

	private volatile long trustLostNanos = System.nanoTime();

	private volatile @Nullable Duration lastResync;

	private final AtomicLong pingsSent = new AtomicLong();

	private final AtomicLong pingsReturned = new AtomicLong();

	private volatile boolean closed;

	CacheTracking(LettuceConnectionFactory connectionFactory, KeyNaming keyNaming, Duration heartbeat,
			@Nullable TaskScheduler scheduler) {
		this.connectionFactory = connectionFactory;
		this.keyPrefix = keyNaming.prefix() + CacheParts.AREA + ":{";
		this.heartbeat = heartbeat;
		this.staleAfterNanos = heartbeat.toNanos() * 3;
		this.givenScheduler = scheduler;
	}

	/**
	 * Routes the invalidations of a cache's entries to its near cache, connecting first if need be (blocks up to
	 * the driver's timeouts). A connection that cannot be made now is tried again every heartbeat.
	 * @param cacheName the cache's name
	 * @param handler told of each invalidation of the cache's entries
	 */
	void watch(String cacheName, Handler handler) {
		this.handlers.put(cacheName, handler);
		if (this.availability != Availability.UNKNOWN) {
			return;
		}
		this.lifecycle.lock();
		try {
			if (this.closed) {
				return;
			}
			if (this.heartbeatTask == null) {
				this.heartbeatTask = every(this::beat);
			}
			connect();
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot make the near caches' tracking connection yet; trying again in " + this.heartbeat, ex);
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	/** @return whether tracking runs, does not, or is not decided yet (Redis not reached so far) */
	Availability availability() {
		return this.availability;
	}

	/** @param action run whenever trust ends, on the thread that noticed; must not block */
	void onTrustLost(Runnable action) {
		this.trustLost.add(action);
	}

	/** @return the current epoch, to take before a read whose value may be kept */
	long epoch() {
		return this.epoch;
	}

	/** @return how long the near caches were last bypassed, from the loss of trust to tracking on again */
	@Nullable Duration lastResync() {
		return this.lastResync;
	}

	/** @return whether an invalidation of a write made now would reach this instance */
	boolean trusted() {
		if (!this.trusted) {
			return false;
		}
		if (System.nanoTime() - this.lastPongNanos > this.staleAfterNanos) {
			loseTrust("no PING came back on the tracking connection for "
					+ Duration.ofNanos(this.staleAfterNanos).toMillis() + " ms");
			return false;
		}
		return true;
	}

	// Under the lifecycle lock.
	private void connect() {
		if (this.availability != Availability.UNKNOWN || this.closed) {
			return;
		}
		AbstractRedisClient nativeClient = this.connectionFactory.getRequiredNativeClient();
		if (!(nativeClient instanceof RedisClient standalone)) {
			decline("the deployment is a Redis Cluster, where tracking is per node");
			return;
		}
		StatefulRedisConnection<byte[], byte[]> tracker = standalone.connect(ByteArrayCodec.INSTANCE);
		String protocol;
		try {
			protocol = protocol(tracker);
		}
		catch (RedisCommandExecutionException ex) {
			tracker.closeAsync();
			decline("the server has no CLIENT INFO (Redis 6.2 or later, Valkey): " + ex.getMessage());
			return;
		}
		catch (RuntimeException ex) {
			tracker.closeAsync();
			throw ex;
		}
		if (!"3".equals(protocol)) {
			tracker.closeAsync();
			decline("the connection speaks RESP" + protocol
					+ " (the server did not accept HELLO 3, or the client is pinned to RESP2)");
			return;
		}
		tracker.addListener(this::onPush);
		RedisConnectionStateListener state = new RedisConnectionStateListener() {

			// On the driver's event loop: nothing here blocks; the command is written once the connection is up.
			@Override
			public void onRedisConnected(RedisChannelHandler<?, ?> handler, java.net.SocketAddress address) {
				if (handler == tracker) {
					enable(tracker, CacheTracking.this.session.get());
				}
			}

			@Override
			public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
				if (handler == tracker) {
					CacheTracking.this.session.incrementAndGet();
					CacheTracking.this.trackingSession = -1;
					loseTrust("the tracking connection is down");
				}
			}

		};
		nativeClient.addListener(state);
		long current = this.session.get();
		try {
			this.enablingSession.set(current);
			tracker.sync().clientTracking(trackingArgs());
		}
		catch (RedisCommandExecutionException ex) {
			nativeClient.removeListener(state);
			tracker.closeAsync();
			decline("the server refused CLIENT TRACKING: " + ex.getMessage());
			return;
		}
		catch (RuntimeException ex) {
			// Connected but not answered (the server stopped answering): the next attempt starts afresh.
			nativeClient.removeListener(state);
			tracker.closeAsync();
			this.enablingSession.set(-1);
			throw ex;
		}
		this.client = nativeClient;
		this.stateListener = state;
		this.connection = tracker;
		this.availability = Availability.AVAILABLE;
		logger.info("Near caches invalidated by server-assisted tracking (CLIENT TRACKING BCAST PREFIX "
				+ this.keyPrefix + ")");
		trackingOn(current);
	}

	/**
	 * What the driver's handshake agreed on, as the server sees the connection: the {@code resp} field of
	 * {@code CLIENT INFO} (public on both sides, unlike the driver's connection state).
	 * @return {@code 2} or {@code 3}; {@code ?} if the server did not say
	 */
	private static String protocol(StatefulRedisConnection<byte[], byte[]> connection) {
		Matcher resp = RESP.matcher(String.valueOf(connection.sync().clientInfo()));
		return resp.find() ? resp.group(1) : "?";
	}

	private TrackingArgs trackingArgs() {
		return TrackingArgs.Builder.enabled().bcast().prefixes(StandardCharsets.UTF_8, this.keyPrefix);
	}

	private void decline(String reason) {
		this.availability = Availability.UNAVAILABLE;
		logger.info("Near-cache tracking is not available, " + reason
				+ "; near caches in 'auto' mode use pub/sub, in 'tracking' mode they stay bypassed");
	}

	/**
	 * Turns tracking on in a session, once: {@code OFF} first, so that a repeat after an unanswered attempt (its
	 * reply lost to a timeout, the server having run it) does not collide with the prefix already registered.
	 */
	private void enable(StatefulRedisConnection<byte[], byte[]> tracker, long inSession) {
		long previous = this.enablingSession.get();
		if (previous == inSession || !this.enablingSession.compareAndSet(previous, inSession) || this.closed) {
			return;
		}
		try {
			tracker.async().clientTracking(TrackingArgs.Builder.enabled(false));
			tracker.async().clientTracking(trackingArgs()).whenComplete((reply, failure) -> {
				if (failure == null) {
					trackingOn(inSession);
				}
				else {
					// Tried again by the next heartbeat.
					this.enablingSession.compareAndSet(inSession, -1);
					logger.debug("CLIENT TRACKING ON was not answered; trying again in " + this.heartbeat, failure);
				}
			});
		}
		catch (RuntimeException ex) {
			this.enablingSession.compareAndSet(inSession, -1);
			logger.debug("Cannot send CLIENT TRACKING ON; trying again in " + this.heartbeat, ex);
		}
	}

	private void trackingOn(long inSession) {
		synchronized (this) {
			if (inSession != this.session.get() || this.closed) {
				return;
			}
			this.trackingSession = inSession;
			// Pings of older sessions may never come back: only those from now on count.
			this.pingsReturned.set(this.pingsSent.get());
			this.lastPongNanos = System.nanoTime();
			if (this.trusted) {
				return;
			}
			this.trusted = true;
			this.lastResync = Duration.ofNanos(System.nanoTime() - this.trustLostNanos);
		}
		logger.info("Near caches answer again, " + this.lastResync.toMillis() + " ms after they were bypassed:"
				+ " tracking is on");
	}

	private void beat() {
		if (this.closed) {
			return;
		}
		if (this.availability == Availability.UNKNOWN) {
			this.lifecycle.lock();
			try {
				connect();
			}
			catch (RuntimeException ex) {
				logger.debug("Cannot make the near caches' tracking connection yet", ex);
			}
			finally {
				this.lifecycle.unlock();
			}
			return;
		}
		StatefulRedisConnection<byte[], byte[]> tracker = this.connection;
		if (tracker == null) {
			return;
		}
		long current = this.session.get();
		if (this.trackingSession != current) {
			enable(tracker, current);
			return;
		}
		// Counted in pings, not time: a heartbeat held up by a busy scheduler neither hides a silent connection
		// nor ends trust early.
		if (this.pingsSent.get() - this.pingsReturned.get() >= 2) {
			loseTrust("the last two PINGs on the tracking connection, a heartbeat apart, did not come back");
		}
		trusted();
		long number = this.pingsSent.incrementAndGet();
		try {
			tracker.async().ping().whenComplete((reply, failure) -> {
				if (failure == null) {
					pong(current, number);
				}
			});
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot send the tracking connection's PING", ex);
		}
	}

	private void pong(long inSession, long number) {
		this.pingsReturned.accumulateAndGet(number, Math::max);
		synchronized (this) {
			if (inSession != this.session.get() || this.trackingSession != inSession || this.closed) {
				return;
			}
			this.lastPongNanos = System.nanoTime();
			if (!this.trusted) {
				// Same connection throughout: the invalidations were late, never lost, and all have arrived now.
				this.trusted = true;
				this.lastResync = Duration.ofNanos(System.nanoTime() - this.trustLostNanos);
				logger.debug("Near caches trusted again: the tracking connection answers");
			}
		}
	}

	private void onPush(PushMessage message) {
		if (!"invalidate".equals(message.getType())) {
			return;
		}
		List<Object> content = message.getContent(CacheTracking::text);
		Object keys = (content.size() > 1) ? content.get(1) : null;
		if (keys == null) {
			// FLUSHDB, FLUSHALL: every key is gone.
			this.handlers.values().forEach((handler) -> handler.invalidated(null));
			return;
		}
		if (keys instanceof List<?> list) {
			for (Object key : list) {
				if (key instanceof String name) {
					route(name);
				}
				else if (key instanceof ByteBuffer buffer) {
					route((String) text(buffer));
				}
			}
		}
	}

	private static Object text(ByteBuffer buffer) {
		return StandardCharsets.UTF_8.decode(buffer.duplicate()).toString();
	}

	/**
	 * Tells the cache whose entry a key is. An entry key is {@code <prefix>cache:{<name>:<encoded key>}}; the lease
	 * and outcome keys (a suffix after the brace) are not entries. A key too long to be kept in the key itself was
	 * hashed ({@link KeyNaming}): it cannot be read back, so every entry of the caches it may belong to is dropped.
	 */
	private void route(String key) {
		if (!key.startsWith(this.keyPrefix) || !key.endsWith("}")) {
			return;
		}
		String inner = key.substring(this.keyPrefix.length(), key.length() - 1);
		int hashed = inner.indexOf('~');
		if (hashed >= 0) {
			String kept = inner.substring(0, hashed);
			this.handlers.forEach((name, handler) -> {
				String head = name + ":";
				if (kept.startsWith(head) || head.startsWith(kept)) {
					handler.invalidated(null);
				}
			});
			return;
		}
		int colon = inner.indexOf(':');
		if (colon < 0) {
			return;
		}
		Handler handler = this.handlers.get(inner.substring(0, colon));
		if (handler != null) {
			handler.invalidated(decode(inner.substring(colon + 1)));
		}
	}

	/** The inverse of {@link KeyNaming#encode(String)} for a name that was not hashed. */
	static String decode(String encoded) {
		if (encoded.indexOf('%') < 0) {
			return encoded;
		}
		StringBuilder decoded = new StringBuilder(encoded.length());
		for (int i = 0; i < encoded.length(); i++) {
			char c = encoded.charAt(i);
			if (c == '%' && i + 2 < encoded.length()) {
				decoded.append((char) Integer.parseInt(encoded, i + 1, i + 3, 16));
				i += 2;
			}
			else {
				decoded.append(c);
			}
		}
		return decoded.toString();
	}

	private void loseTrust(String reason) {
		synchronized (this) {
			if (!this.trusted) {
				return;
			}
			this.trusted = false;
			this.epoch++;
			this.trustLostNanos = System.nanoTime();
		}
		logger.info("Near caches flushed and bypassed until tracking is on again: " + reason);
		for (Runnable action : this.trustLost) {
			action.run();
		}
	}

	/** Runs a task every heartbeat on the given scheduler or a daemon thread of its own, first after one. */
	private ScheduledFuture<?> every(Runnable task) {
		if (this.givenScheduler != null) {
			return this.givenScheduler.scheduleAtFixedRate(task, java.time.Instant.now().plus(this.heartbeat),
					this.heartbeat);
		}
		this.ownScheduler = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "redis-kit-cache-tracking");
			thread.setDaemon(true);
			return thread;
		});
		long period = this.heartbeat.toMillis();
		return this.ownScheduler.scheduleAtFixedRate(task, period, period, TimeUnit.MILLISECONDS);
	}

	/**
	 * Ends the heartbeat and the connection. Returns within {@link BoundedStop#TIMEOUT}: a connection being made is
	 * not waited for longer.
	 */
	@Override
	public void close() {
		this.closed = true;
		this.trusted = false;
		if (!BoundedStop.lock(this.lifecycle, "the near caches' tracking connection")) {
			return;
		}
		try {
			if (this.heartbeatTask != null) {
				this.heartbeatTask.cancel(false);
				this.heartbeatTask = null;
			}
			if (this.ownScheduler != null) {
				this.ownScheduler.shutdownNow();
				this.ownScheduler = null;
			}
			if (this.client != null && this.stateListener != null) {
				this.client.removeListener(this.stateListener);
			}
			this.stateListener = null;
			if (this.connection != null) {
				this.connection.closeAsync();
				this.connection = null;
			}
		}
		finally {
			this.lifecycle.unlock();
		}
	}

}
