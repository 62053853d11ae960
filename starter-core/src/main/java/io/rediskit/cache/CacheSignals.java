package io.rediskit.cache;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.rediskit.support.BoundedStop;
import io.rediskit.support.CommandExecutor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.scheduling.TaskScheduler;

/**
 * The caches' pub/sub: one Lettuce subscription connection per cache manager, carrying each cache's channel
 * (loads ended, entries written or evicted) and a probe channel of this instance alone.
 * <p>
 * Whether the near caches may be trusted: a message lost while the subscription was down would leave a stale
 * entry behind, so trust ends when the connection reports a disconnect or when the probe, published on the
 * ordinary connection every heartbeat, stops coming back (a connection that is up but silent): a heartbeat that
 * finds neither of the two probes sent since the last one that came back ends it. A subscription that dies
 * silently is so noticed at the third heartbeat after the last probe it carried, within three heartbeats of its
 * death (a probe may take up to two heartbeats to come back before it counts as lost). A read between heartbeats
 * also ends trust once no probe came back for three heartbeats, in case the heartbeats themselves are held up.
 * Each loss starts a new {@link #epoch()}: entries stored before it are never served again. Trust
 * comes back when a probe, published by the next heartbeat after a reconnect, comes back through the
 * subscription, which proves it carries messages again (Lettuce subscribes the channels again on reconnect).
 * <p>
 * Nothing is connected before the first {@link #watch}; {@link #close()} ends the connection and the heartbeat. A
 * channel that cannot be subscribed when it is first watched (Redis is down) is subscribed again every heartbeat
 * until it is; once subscribed, Lettuce keeps it across reconnects.
 */
final class CacheSignals implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(CacheSignals.class);

	private final LettuceConnectionFactory connectionFactory;

	private final CommandExecutor commands;

	private final byte[] probeChannel;

	private final Duration heartbeat;

	private final long staleAfterNanos;

	private final @Nullable TaskScheduler givenScheduler;

	private final Map<String, Consumer<byte[]>> handlers = new ConcurrentHashMap<>();

	private final List<Runnable> trustLost = new CopyOnWriteArrayList<>();

	/** The channels the server confirmed; the others of {@link #handlers} wait for the retry. */
	private final Set<String> subscribed = ConcurrentHashMap.newKeySet();

	private @Nullable ScheduledFuture<?> retryTask;

	private final ReentrantLock lifecycle = new ReentrantLock();

	private @Nullable StatefulRedisPubSubConnection<byte[], byte[]> connection;

	private @Nullable AbstractRedisClient client;

	private @Nullable RedisConnectionStateListener stateListener;

	private @Nullable ScheduledExecutorService ownScheduler;

	private @Nullable ScheduledFuture<?> heartbeatTask;

	private volatile boolean connected;

	private volatile boolean trusted;

	private volatile long epoch;

	private volatile long lastProbeNanos = System.nanoTime();

	/** The number of the last probe published; each carries its number. */
	private final AtomicLong probesSent = new AtomicLong();

	/** The highest number of a probe that came back. */
	private final AtomicLong probesReturned = new AtomicLong();

	private volatile boolean closed;

	CacheSignals(LettuceConnectionFactory connectionFactory, CommandExecutor commands, String probeChannelPrefix,
			Duration heartbeat, @Nullable TaskScheduler scheduler) {
		this.connectionFactory = connectionFactory;
		this.commands = commands;
		this.probeChannel = (probeChannelPrefix + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8);
		this.heartbeat = heartbeat;
		this.staleAfterNanos = heartbeat.toNanos() * 3;
		this.givenScheduler = scheduler;
	}

	/**
	 * Subscribes a channel, connecting first if need be. Blocks until the server confirmed the subscription.
	 * @param channel the channel
	 * @param handler told of each message, on the driver's thread: it must not block
	 * @throws RuntimeException if Redis cannot be reached; the caller works without the channel meanwhile
	 */
	void watch(String channel, Consumer<byte[]> handler) {
		this.handlers.put(channel, handler);
		try {
			subscribe(channel);
		}
		catch (RuntimeException ex) {
			retryLater();
			throw ex;
		}
	}

	/** @return whether the server confirmed the subscription of a channel */
	boolean watching(String channel) {
		return this.subscribed.contains(channel);
	}

	private void subscribe(String channel) {
		StatefulRedisPubSubConnection<byte[], byte[]> subscriber = start();
		subscriber.sync().subscribe(channel.getBytes(StandardCharsets.UTF_8));
		this.subscribed.add(channel);
	}

	/**
	 * Subscribes the channels not subscribed yet, every heartbeat until all are: without this a cache first used
	 * while Redis was down would never get its invalidations, and its near cache would stay bypassed for good.
	 */
	private void retryLater() {
		this.lifecycle.lock();
		try {
			if (this.closed || this.retryTask != null) {
				return;
			}
			this.retryTask = every(this::retry, true);
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	private void retry() {
		if (this.closed) {
			return;
		}
		try {
			for (String channel : this.handlers.keySet()) {
				if (!this.subscribed.contains(channel)) {
					subscribe(channel);
				}
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot subscribe the cache channels yet; trying again in " + this.heartbeat, ex);
			return;
		}
		this.lifecycle.lock();
		try {
			if (this.retryTask != null && this.subscribed.containsAll(this.handlers.keySet())) {
				this.retryTask.cancel(false);
				this.retryTask = null;
			}
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	/** Runs a task every heartbeat on the given scheduler or the manager's own thread, first after one. */
	private ScheduledFuture<?> every(Runnable task, boolean delayed) {
		if (this.givenScheduler != null) {
			return delayed
					? this.givenScheduler.scheduleAtFixedRate(task, java.time.Instant.now().plus(this.heartbeat),
							this.heartbeat)
					: this.givenScheduler.scheduleAtFixedRate(task, this.heartbeat);
		}
		if (this.ownScheduler == null) {
			this.ownScheduler = Executors.newSingleThreadScheduledExecutor((runnable) -> {
				Thread thread = new Thread(runnable, "redis-kit-cache-heartbeat");
				thread.setDaemon(true);
				return thread;
			});
		}
		long period = this.heartbeat.toMillis();
		return this.ownScheduler.scheduleAtFixedRate(task, delayed ? period : 0, period, TimeUnit.MILLISECONDS);
	}

	/** @param action run whenever trust ends, on the thread that noticed; must not block */
	void onTrustLost(Runnable action) {
		this.trustLost.add(action);
	}

	/** @return the current epoch, to take before a read whose value may be kept */
	long epoch() {
		return this.epoch;
	}

	/** @return whether an invalidation sent now would reach this instance */
	boolean trusted() {
		if (!this.trusted) {
			return false;
		}
		if (System.nanoTime() - this.lastProbeNanos > this.staleAfterNanos) {
			loseTrust("no probe came back for " + Duration.ofNanos(this.staleAfterNanos).toMillis() + " ms");
			return false;
		}
		return true;
	}

	private StatefulRedisPubSubConnection<byte[], byte[]> start() {
		this.lifecycle.lock();
		try {
			StatefulRedisPubSubConnection<byte[], byte[]> subscriber = connect();
			if (this.closed) {
				throw new IllegalStateException("The cache manager is closed");
			}
			return subscriber;
		}
		finally {
			if (this.closed) {
				// Closed while connecting: the close did not wait for this connection, which ends here.
				release();
			}
			this.lifecycle.unlock();
		}
	}

	// Under the lifecycle lock. Connecting and the first subscription wait up to the driver's timeouts.
	private StatefulRedisPubSubConnection<byte[], byte[]> connect() {
		StatefulRedisPubSubConnection<byte[], byte[]> existing = this.connection;
		if (existing != null) {
			return existing;
		}
		if (this.closed) {
			throw new IllegalStateException("The cache manager is closed");
		}
		AbstractRedisClient nativeClient = this.connectionFactory.getRequiredNativeClient();
		StatefulRedisPubSubConnection<byte[], byte[]> subscriber;
		if (nativeClient instanceof RedisClusterClient cluster) {
			subscriber = cluster.connectPubSub(ByteArrayCodec.INSTANCE);
		}
		else if (nativeClient instanceof RedisClient standalone) {
			subscriber = standalone.connectPubSub(ByteArrayCodec.INSTANCE);
		}
		else {
			throw new IllegalStateException("Cannot subscribe with a " + nativeClient.getClass().getName());
		}
		subscriber.addListener(new RedisPubSubAdapter<>() {

			@Override
			public void message(byte[] channel, byte[] message) {
				dispatch(channel, message);
			}

		});
		RedisConnectionStateListener state = new RedisConnectionStateListener() {

			// On the driver's event loop: nothing here may block, not even opening a connection to publish a
			// probe (that would wait for this very loop). The next heartbeat publishes it.
			@Override
			public void onRedisConnected(RedisChannelHandler<?, ?> handler, java.net.SocketAddress address) {
				if (isOurs(handler, subscriber)) {
					CacheSignals.this.connected = true;
				}
			}

			@Override
			public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
				if (isOurs(handler, subscriber)) {
					CacheSignals.this.connected = false;
					loseTrust("the subscription connection is down");
				}
			}

		};
		nativeClient.addListener(state);
		try {
			subscriber.sync().subscribe(this.probeChannel);
		}
		catch (RuntimeException ex) {
			// Connected but not subscribed (the server stopped answering): the next attempt starts afresh.
			nativeClient.removeListener(state);
			subscriber.closeAsync();
			throw ex;
		}
		this.client = nativeClient;
		this.stateListener = state;
		this.connected = true;
		this.connection = subscriber;
		this.heartbeatTask = every(this::beat, false);
		probe();
		return subscriber;
	}

	// On a cluster the events name the connection of each node the subscription uses: any of them counts.
	private static boolean isOurs(RedisChannelHandler<?, ?> handler,
			StatefulRedisPubSubConnection<byte[], byte[]> subscriber) {
		return handler == subscriber || subscriber instanceof StatefulRedisClusterPubSubConnection<?, ?>;
	}

	private void beat() {
		if (this.closed) {
			return;
		}
		// Counted in probes, not time: a heartbeat held up by a busy scheduler neither hides a dead subscription
		// for a fourth heartbeat nor ends trust early.
		if (this.probesSent.get() - this.probesReturned.get() >= 2) {
			loseTrust("the last two probes, a heartbeat apart, did not come back");
		}
		trusted();
		probe();
	}

	private void probe() {
		byte[] number = Long.toString(this.probesSent.incrementAndGet()).getBytes(StandardCharsets.US_ASCII);
		try {
			this.commands.executeAsync("PUBLISH", ReturnType.INTEGER, this.probeChannel, number)
				.exceptionally((ex) -> null);
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot publish the cache probe", ex);
		}
	}

	private void dispatch(byte[] channel, byte[] message) {
		if (java.util.Arrays.equals(channel, this.probeChannel)) {
			long number;
			try {
				number = Long.parseLong(new String(message, StandardCharsets.US_ASCII));
			}
			catch (NumberFormatException ex) {
				return;
			}
			this.probesReturned.accumulateAndGet(number, Math::max);
			this.lastProbeNanos = System.nanoTime();
			if (this.connected && !this.trusted) {
				this.trusted = true;
				logger.debug("Near caches trusted again: the subscription carries messages");
			}
			return;
		}
		Consumer<byte[]> handler = this.handlers.get(new String(channel, StandardCharsets.UTF_8));
		if (handler != null) {
			handler.accept(message);
		}
	}

	private void loseTrust(String reason) {
		synchronized (this) {
			if (!this.trusted) {
				return;
			}
			this.trusted = false;
			this.epoch++;
		}
		logger.info("Near caches flushed and bypassed until the invalidation subscription is back: " + reason);
		for (Runnable action : this.trustLost) {
			action.run();
		}
	}

	/**
	 * Ends the heartbeat and the connection. Returns within {@link BoundedStop#TIMEOUT}: a connection being made
	 * (which waits up to the driver's connect and command timeouts while Redis does not answer) is not waited
	 * for longer; it is closed as soon as it is made.
	 */
	@Override
	public void close() {
		this.closed = true;
		this.trusted = false;
		if (!BoundedStop.lock(this.lifecycle, "the caches' invalidation subscription")) {
			return;
		}
		try {
			release();
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	// Under the lifecycle lock, once closed.
	private void release() {
		for (ScheduledFuture<?> task : new ScheduledFuture<?>[] { this.heartbeatTask, this.retryTask }) {
			if (task != null) {
				task.cancel(false);
			}
		}
		this.heartbeatTask = null;
		this.retryTask = null;
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
		this.trusted = false;
	}

}
