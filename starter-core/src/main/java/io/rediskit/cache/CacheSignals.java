package io.rediskit.cache;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import io.rediskit.support.Background;
import io.rediskit.support.BoundedStop;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.Subscriptions;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The caches' pub/sub: one subscription connection per cache manager ({@link Subscriptions}), carrying each cache's
 * channel (loads ended, entries written or evicted) and a probe channel of this instance alone.
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
 * subscription, which proves it carries messages again.
 * <p>
 * Nothing is connected before the first {@link #watch}; {@link #close()} ends the connection and the heartbeat. A
 * channel that cannot be subscribed (Redis is down) is asked for again every heartbeat until it is, and again
 * after every reconnect: the shared subscription piece's rule.
 */
final class CacheSignals implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(CacheSignals.class);

	private final CommandExecutor commands;

	private final String probeChannel;

	private final Duration heartbeat;

	private final long staleAfterNanos;

	/** Runs the heartbeat and opens the connection: the application's, or the cache manager's own. */
	private final Background background;

	private final Subscriptions subscriptions;

	private final List<Runnable> trustLost = new CopyOnWriteArrayList<>();

	private final ReentrantLock lifecycle = new ReentrantLock();

	private @Nullable ScheduledFuture<?> heartbeatTask;

	private volatile boolean trusted;

	private volatile long epoch;

	private volatile long lastProbeNanos = System.nanoTime();

	/** The number of the last probe published; each carries its number. */
	private final AtomicLong probesSent = new AtomicLong();

	/** The highest number of a probe that came back. */
	private final AtomicLong probesReturned = new AtomicLong();

	private volatile boolean closed;

	/**
	 * @param background runs the heartbeat and opens the connection; the cache manager closes it if it is its own
	 */
	CacheSignals(LettuceConnectionFactory connectionFactory, CommandExecutor commands, String probeChannelPrefix,
			Duration heartbeat, Background background) {
		this.commands = commands;
		this.probeChannel = probeChannelPrefix + UUID.randomUUID();
		this.heartbeat = heartbeat;
		this.staleAfterNanos = heartbeat.toNanos() * 3;
		this.background = background;
		this.subscriptions = Subscriptions.of(connectionFactory, this.background, "the caches' channels", heartbeat);
		this.subscriptions.addListener(new Subscriptions.Listener() {

			@Override
			public void onDisconnected() {
				loseTrust("the subscription connection is down");
			}

		});
	}

	/**
	 * Subscribes a channel, connecting first if need be. Blocks until the server confirmed the subscription, at
	 * most the command timeout.
	 * @param channel the channel
	 * @param handler told of each message, on the driver's thread: it must not block
	 * @throws RuntimeException if Redis cannot be reached in time (the subscription is asked for again every
	 * heartbeat; the caller works without the channel meanwhile), or {@link IllegalStateException} once closed
	 */
	void watch(String channel, Consumer<byte[]> handler) {
		start();
		try {
			this.subscriptions.subscribe(channel, handler).join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
		}
	}

	/** @return whether the server confirmed the subscription of a channel */
	boolean watching(String channel) {
		return this.subscriptions.isSubscribed(channel);
	}

	/** On the first watch: the probe channel, a first probe once it is subscribed, and the heartbeat. */
	private void start() {
		this.lifecycle.lock();
		try {
			if (this.closed) {
				throw new IllegalStateException("The cache manager is closed");
			}
			if (this.heartbeatTask != null) {
				return;
			}
			this.subscriptions.subscribe(this.probeChannel, this::probeReturned)
				.thenRun(this::probe)
				.exceptionally((ex) -> null);
			this.heartbeatTask = this.background.scheduleAtFixedRate(this::beat, this.heartbeat, this.heartbeat);
		}
		finally {
			this.lifecycle.unlock();
		}
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
			this.commands
				.executeAsync("PUBLISH", ReturnType.INTEGER, this.probeChannel.getBytes(StandardCharsets.UTF_8), number)
				.exceptionally((ex) -> null);
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot publish the cache probe", ex);
		}
	}

	private void probeReturned(byte[] message) {
		long number;
		try {
			number = Long.parseLong(new String(message, StandardCharsets.US_ASCII));
		}
		catch (NumberFormatException ex) {
			return;
		}
		this.probesReturned.accumulateAndGet(number, Math::max);
		this.lastProbeNanos = System.nanoTime();
		if (this.subscriptions.isConnected() && !this.trusted && !this.closed) {
			this.trusted = true;
			logger.debug("Near caches trusted again: the subscription carries messages");
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
	 * Ends the heartbeat and the connection. Never waits for a connection being made (which waits up to the
	 * driver's connect and command timeouts while Redis does not answer): it is closed as soon as it is made, and a
	 * watch waiting for it fails with {@link IllegalStateException}.
	 */
	@Override
	public void close() {
		closeAsync();
	}

	/** @return {@link #close()}, completed once the subscription's connection is closed */
	CompletableFuture<Void> closeAsync() {
		this.closed = true;
		this.trusted = false;
		boolean locked = BoundedStop.lock(this.lifecycle, "the caches' heartbeat");
		try {
			if (this.heartbeatTask != null) {
				this.heartbeatTask.cancel(false);
				this.heartbeatTask = null;
			}
		}
		finally {
			if (locked) {
				this.lifecycle.unlock();
			}
		}
		return this.subscriptions.closeAsync();
	}

}
