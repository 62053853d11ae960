package io.rediskit.support;

import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The pub/sub channels of one owner (a lock registry's release channels, a queue registry's wake-ups, a cache
 * manager's invalidations) on one Lettuce pub/sub connection, and the one way redis-kit subscribes:
 * <ul>
 * <li><b>Subscribe with a bounded wait.</b> {@link #subscribe} sends {@code SUBSCRIBE} without blocking and returns a
 * stage that completes when the server confirms it, or fails with {@link QueryTimeoutException} after the bound
 * (the command timeout, at most {@link BoundedStop#TIMEOUT}); nothing waits longer for a server that does not
 * answer. Opening the connection, which blocks up to the driver's connect timeout, runs on the
 * {@link Background#executor() background executor}, never on the caller's thread.</li>
 * <li><b>Subscribe again after a reconnect.</b> Lettuce reconnects the connection after a drop ({@code CLIENT KILL},
 * a server restart, a reset) and subscribes the channels it had again; what it could not (a channel never confirmed,
 * a {@code SUBSCRIBE} lost with the connection, a connection that could not be opened at all) is asked for again
 * every retry interval on the {@link Background#scheduler() scheduler} until the server confirms it.</li>
 * <li><b>Report.</b> {@link #isSubscribed} says whether the server confirmed a channel on the connection as it is
 * now; a {@link Listener} hears when the connection goes down and comes back (a message may have been lost in
 * between); a failure to subscribe is logged once per interval, with what follows from it. Only the subscriber's own
 * connection counts: on Cluster that is one connection to one node (a publish reaches every node), which Lettuce moves
 * to another node when its own is lost; the client's other connections coming and going (a topology refresh, the
 * application's connections to each node) leave the subscription up.</li>
 * </ul>
 * Messages are handed to each channel's handler on the driver's thread: a handler must only signal, never block. A
 * wait for a confirmation completes on the background executor, so what follows it may call Redis.
 * Nothing is connected before the first {@link #subscribe}; {@link #close()} never waits: it drops every channel,
 * fails the waits in progress with {@link IllegalStateException} and closes the connection asynchronously, and a
 * connection still being opened closes itself once made.
 * <p>
 * Pub/sub needs Lettuce: on any other connection factory (Jedis) every subscription fails at once, and each owner
 * does without (waiters poll, near caches are bypassed). Internal to redis-kit.
 */
public final class Subscriptions implements AutoCloseable {

	/** Hears when the connection goes down and comes back; on the driver's thread, so it must not block. */
	public interface Listener {

		/** The connection is up (again): channels are confirmed anew as the server answers. */
		default void onConnected() {
		}

		/** The connection is down: messages sent until it is back are lost. */
		default void onDisconnected() {
		}

	}

	/** How often what is not confirmed is asked for again, unless the owner says otherwise. */
	public static final Duration RETRY_INTERVAL = Duration.ofSeconds(1);

	private static final Log logger = LogFactory.getLog(Subscriptions.class);

	private final RedisConnectionFactory connectionFactory;

	private final Background background;

	private final String what;

	private final Duration timeout;

	private final Duration retryInterval;

	private final ThrottledLog failures;

	private final Map<String, Wanted> wanted = new ConcurrentHashMap<>();

	/** The channels the server confirmed on the connection as it is now. */
	private final Set<String> confirmed = ConcurrentHashMap.newKeySet();

	private final List<Listener> listeners = new CopyOnWriteArrayList<>();

	// Held for what only sends or swaps references, never for a wait: the order of SUBSCRIBE and UNSUBSCRIBE on the
	// connection is the order of the calls. A ReentrantLock keeps virtual threads unpinned.
	private final ReentrantLock lock = new ReentrantLock();

	private @Nullable StatefulRedisPubSubConnection<byte[], byte[]> connection;

	private boolean connecting;

	private @Nullable ScheduledFuture<?> retryTask;

	private volatile boolean connected;

	private volatile boolean closed;

	/**
	 * @param connectionFactory whose client opens the pub/sub connection
	 * @param background where the connection is opened and the retries run
	 * @param what the owner's channels, for the log: "the lock's release channels"
	 * @param timeout how long a subscription's confirmation is waited for
	 * @param retryInterval how often what is not confirmed is asked for again
	 */
	public Subscriptions(RedisConnectionFactory connectionFactory, Background background, String what,
			Duration timeout, Duration retryInterval) {
		this.connectionFactory = connectionFactory;
		this.background = background;
		this.what = what;
		this.timeout = timeout;
		this.retryInterval = retryInterval;
		this.failures = new ThrottledLog(logger, Duration.ofSeconds(10),
				"Cannot subscribe to " + what + " (asked again every " + retryInterval.toMillis() + " ms)");
	}

	/**
	 * Subscriptions that wait for a confirmation up to the factory's command timeout, at most
	 * {@link BoundedStop#TIMEOUT}, and ask again every {@link #RETRY_INTERVAL}.
	 * @param connectionFactory whose client opens the pub/sub connection
	 * @param background where the connection is opened and the retries run
	 * @param what the owner's channels, for the log
	 * @return the subscriptions, connected on the first {@link #subscribe}
	 */
	public static Subscriptions of(RedisConnectionFactory connectionFactory, Background background, String what) {
		return of(connectionFactory, background, what, RETRY_INTERVAL);
	}

	/**
	 * Subscriptions that wait for a confirmation up to the factory's command timeout, at most
	 * {@link BoundedStop#TIMEOUT}.
	 * @param connectionFactory whose client opens the pub/sub connection
	 * @param background where the connection is opened and the retries run
	 * @param what the owner's channels, for the log
	 * @param retryInterval how often what is not confirmed is asked for again
	 * @return the subscriptions, connected on the first {@link #subscribe}
	 */
	public static Subscriptions of(RedisConnectionFactory connectionFactory, Background background, String what,
			Duration retryInterval) {
		Duration timeout = BoundedStop.TIMEOUT;
		if (connectionFactory instanceof LettuceConnectionFactory lettuce && lettuce.getTimeout() > 0
				&& lettuce.getTimeout() < timeout.toMillis()) {
			timeout = Duration.ofMillis(lettuce.getTimeout());
		}
		return new Subscriptions(connectionFactory, background, what, timeout, retryInterval);
	}

	/** @param listener told when the connection goes down and comes back */
	public void addListener(Listener listener) {
		this.listeners.add(listener);
	}

	/**
	 * Subscribes a channel, connecting first if need be, until {@link #unsubscribe}; a channel already subscribed gets
	 * the new handler. Never blocks.
	 * @param channel the channel
	 * @param handler told each message's body, on the driver's thread: it must not block
	 * @return completes when the server confirmed the subscription; fails with {@link QueryTimeoutException} after
	 * the bound (the subscription is still asked for, every retry interval), or {@link IllegalStateException} once
	 * closed, or {@link CancellationException} when unsubscribed first
	 */
	public CompletableFuture<Void> subscribe(String channel, Consumer<byte[]> handler) {
		CompletableFuture<Void> first;
		this.lock.lock();
		try {
			if (this.closed) {
				return CompletableFuture.failedFuture(closed());
			}
			Wanted wanted = this.wanted.compute(channel, (name, old) -> (old != null) ? old.handledBy(handler)
					: new Wanted(handler));
			first = wanted.first;
			if (this.confirmed.contains(channel)) {
				first.complete(null);
			}
			else {
				send(List.of(channel));
			}
			retryUntilConfirmed();
		}
		finally {
			this.lock.unlock();
		}
		return bounded(channel, first);
	}

	private CompletableFuture<Void> bounded(String channel, CompletableFuture<Void> first) {
		CompletableFuture<Void> result = first.copy();
		if (result.isDone()) {
			return result;
		}
		try {
			ScheduledFuture<?> timer = this.background.schedule(() -> result.completeExceptionally(
					new QueryTimeoutException("Redis did not confirm the subscription of " + channel + " within "
							+ this.timeout.toMillis() + " ms")),
					this.timeout);
			result.whenComplete((done, failure) -> timer.cancel(false));
		}
		catch (RuntimeException ex) {
			// The background is closed with the application: nothing would end the wait.
			result.completeExceptionally(ex);
		}
		return result;
	}

	/** Unsubscribes a channel; a wait for its confirmation fails with {@link CancellationException}. */
	public void unsubscribe(String channel) {
		Wanted removed;
		this.lock.lock();
		try {
			removed = this.wanted.remove(channel);
			if (removed == null) {
				return;
			}
			this.confirmed.remove(channel);
			StatefulRedisPubSubConnection<byte[], byte[]> current = this.connection;
			if (current != null) {
				current.async().unsubscribe(bytes(channel)).exceptionally((ex) -> {
					logger.debug("Cannot unsubscribe from " + channel, ex);
					return null;
				});
			}
		}
		finally {
			this.lock.unlock();
		}
		removed.first.completeExceptionally(new CancellationException("Unsubscribed from " + channel));
	}

	/** @return whether the server confirmed the channel on the connection as it is now */
	public boolean isSubscribed(String channel) {
		return this.connected && this.confirmed.contains(channel);
	}

	/** @return whether the pub/sub connection is up */
	public boolean isConnected() {
		return this.connected;
	}

	/** Under the lock: asks for channels on the connection, or opens it first; messages in order of the calls. */
	private void send(List<String> channels) {
		StatefulRedisPubSubConnection<byte[], byte[]> current = this.connection;
		if (current == null) {
			connect();
			return;
		}
		// Confirmed through the listener's subscribed(), which also hears Lettuce's own resubscriptions.
		current.async().subscribe(channels.stream().map(Subscriptions::bytes).toArray(byte[][]::new))
			.exceptionally((ex) -> {
				this.failures.warn(ex, consequence());
				return null;
			});
	}

	/** Under the lock: opens the connection on the background executor, unless that is under way. */
	private void connect() {
		if (this.connecting || this.closed) {
			return;
		}
		this.connecting = true;
		try {
			this.background.executor().execute(this::open);
		}
		catch (RuntimeException ex) {
			this.connecting = false;
			this.failures.warn(ex, consequence());
		}
	}

	/** On the background executor: blocks up to the driver's connect timeout while Redis does not answer. */
	private void open() {
		StatefulRedisPubSubConnection<byte[], byte[]> opened;
		try {
			if (!(this.connectionFactory instanceof LettuceConnectionFactory lettuce)) {
				throw new IllegalStateException("Pub/sub needs a LettuceConnectionFactory, not a "
						+ this.connectionFactory.getClass().getName());
			}
			AbstractRedisClient nativeClient = lettuce.getRequiredNativeClient();
			if (nativeClient instanceof RedisClusterClient cluster) {
				opened = cluster.connectPubSub(ByteArrayCodec.INSTANCE);
			}
			else if (nativeClient instanceof RedisClient standalone) {
				opened = standalone.connectPubSub(ByteArrayCodec.INSTANCE);
			}
			else {
				throw new IllegalStateException("Cannot subscribe with a " + nativeClient.getClass().getName());
			}
			opened.addListener(new Messages());
			// The connection's own events, not the client's: those name every connection the client opens and
			// closes (a Cluster topology refresh's, the application's to each node), none of which carries these
			// channels. On Cluster the subscriptions live on the pub/sub connection's default node connection, whose
			// events name the pub/sub connection itself; the per-node connections it opens only for node-selection
			// and sharded commands, which are not used here, report to listeners of their own.
			opened.addListener(new ConnectionState());
		}
		catch (RuntimeException ex) {
			List<CompletableFuture<Void>> failed = new ArrayList<>();
			this.lock.lock();
			try {
				this.connecting = false;
				// The waits in progress learn it now rather than at their bound; the retries go on.
				this.wanted.values().forEach((each) -> failed.add(each.renew()));
			}
			finally {
				this.lock.unlock();
			}
			failed.forEach((each) -> each.completeExceptionally(ex));
			if (!this.closed) {
				this.failures.warn(ex, consequence());
			}
			return;
		}
		boolean kept;
		this.lock.lock();
		try {
			this.connecting = false;
			kept = !this.closed;
			if (kept) {
				this.connection = opened;
				this.connected = true;
				if (!this.wanted.isEmpty()) {
					send(new ArrayList<>(this.wanted.keySet()));
				}
			}
		}
		finally {
			this.lock.unlock();
		}
		if (!kept) {
			// Closed while connecting: the close did not wait for this connection, which ends here; its events are
			// ignored once closed.
			opened.closeAsync();
			return;
		}
		this.listeners.forEach(Listener::onConnected);
	}

	/**
	 * Under the lock: every retry interval, while any channel is subscribed, asks again for what is not confirmed (a
	 * check without a round trip when everything is), so that a drop, whenever it comes, is repaired.
	 */
	private void retryUntilConfirmed() {
		if (this.retryTask != null || this.closed) {
			return;
		}
		try {
			this.retryTask = this.background.scheduleAtFixedRate(this::retry, this.retryInterval, this.retryInterval);
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot schedule the retries of " + this.what, ex);
		}
	}

	private void retry() {
		this.lock.lock();
		try {
			if (this.closed) {
				return;
			}
			if (this.wanted.isEmpty()) {
				// Nothing to watch over until the next subscribe starts the retries again.
				if (this.retryTask != null) {
					this.retryTask.cancel(false);
					this.retryTask = null;
				}
				return;
			}
			if (this.connection == null) {
				connect();
				return;
			}
			if (!this.connected) {
				// Lettuce reconnects, then subscribes what it had; the first retry after that asks for the rest.
				return;
			}
			List<String> missing = this.wanted.keySet().stream().filter((channel) -> !this.confirmed.contains(channel))
				.toList();
			if (!missing.isEmpty()) {
				send(missing);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Completes a wait for a confirmation on the background executor, not on the driver's event loop: what follows a
	 * subscription (a cache's first probe, a lock waiter's attempt) may open a connection of the same client, which
	 * would wait for this very loop.
	 */
	private void confirm(CompletableFuture<Void> first) {
		if (first.isDone()) {
			return;
		}
		try {
			this.background.executor().execute(() -> first.complete(null));
		}
		catch (RuntimeException ex) {
			// Closed or saturated: a wait that would otherwise end only at its bound ends now.
			first.complete(null);
		}
	}

	private String consequence() {
		return "going on without them until they are confirmed";
	}

	private IllegalStateException closed() {
		return new IllegalStateException("The subscriptions to " + this.what + " are closed");
	}

	/**
	 * Drops every channel and closes the connection without waiting for it; a connection being opened closes itself
	 * once made. Waits for a confirmation fail with {@link IllegalStateException}.
	 */
	@Override
	public void close() {
		closeAsync();
	}

	/**
	 * {@link #close()}, telling when the connection is closed: an owner that closes the driver's client next waits
	 * for it (bounded), else the client's shutdown finds the connection still closing and the driver warns that it
	 * is closed already.
	 * @return completed once the open connection is closed; at once when there was none
	 */
	public CompletableFuture<Void> closeAsync() {
		this.closed = true;
		this.connected = false;
		StatefulRedisPubSubConnection<byte[], byte[]> closing;
		List<Wanted> dropped;
		// Only sends and swaps run under the lock, so this is short; bounded all the same, as every wait of a stop.
		boolean locked = BoundedStop.lock(this.lock, this.what);
		try {
			closing = this.connection;
			this.connection = null;
			if (this.retryTask != null) {
				this.retryTask.cancel(false);
				this.retryTask = null;
			}
			dropped = new ArrayList<>(this.wanted.values());
			this.wanted.clear();
			this.confirmed.clear();
		}
		finally {
			if (locked) {
				this.lock.unlock();
			}
		}
		IllegalStateException failure = closed();
		dropped.forEach((each) -> each.first.completeExceptionally(failure));
		return (closing != null) ? closing.closeAsync() : CompletableFuture.completedFuture(null);
	}

	private static byte[] bytes(String channel) {
		return channel.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * A channel subscribed until unsubscribed: its handler, and the next confirmation the waits in progress await.
	 */
	private static final class Wanted {

		volatile CompletableFuture<Void> first = new CompletableFuture<>();

		volatile Consumer<byte[]> handler;

		Wanted(Consumer<byte[]> handler) {
			this.handler = handler;
		}

		Wanted handledBy(Consumer<byte[]> handler) {
			this.handler = handler;
			return this;
		}

		/**
		 * Under the lock, when the connection could not be opened: later waits await a fresh confirmation.
		 * @return the one the waits so far await, to fail
		 */
		CompletableFuture<Void> renew() {
			CompletableFuture<Void> old = this.first;
			if (!old.isDone()) {
				this.first = new CompletableFuture<>();
			}
			return old;
		}

	}

	/** On the driver's thread: messages to their handlers, confirmations to the waits. */
	private final class Messages extends RedisPubSubAdapter<byte[], byte[]> {

		@Override
		public void message(byte[] channel, byte[] message) {
			Wanted wanted = Subscriptions.this.wanted.get(new String(channel, StandardCharsets.UTF_8));
			if (wanted == null) {
				return;
			}
			try {
				wanted.handler.accept(message);
			}
			catch (RuntimeException ex) {
				logger.warn("A handler of " + Subscriptions.this.what + " failed", ex);
			}
		}

		@Override
		public void subscribed(byte[] channel, long count) {
			String name = new String(channel, StandardCharsets.UTF_8);
			Wanted wanted = Subscriptions.this.wanted.get(name);
			if (wanted != null) {
				Subscriptions.this.confirmed.add(name);
				confirm(wanted.first);
			}
		}

		@Override
		public void unsubscribed(byte[] channel, long count) {
			String name = new String(channel, StandardCharsets.UTF_8);
			if (!Subscriptions.this.wanted.containsKey(name)) {
				Subscriptions.this.confirmed.remove(name);
			}
		}

	}

	/**
	 * The events of the subscriber's own connection, on the driver's event loop: nothing here may block, nor open a
	 * connection (that would wait for this very loop). A drop forgets every confirmation, since the server forgot the
	 * subscriptions; Lettuce's own resubscription after the reconnect, or the next retry, confirms them again.
	 */
	private final class ConnectionState implements RedisConnectionStateListener {

		@Override
		public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
			if (!Subscriptions.this.closed) {
				Subscriptions.this.connected = true;
				Subscriptions.this.listeners.forEach(Listener::onConnected);
			}
		}

		@Override
		public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
			if (!Subscriptions.this.closed) {
				Subscriptions.this.connected = false;
				Subscriptions.this.confirmed.clear();
				Subscriptions.this.listeners.forEach(Listener::onDisconnected);
			}
		}

	}

}
