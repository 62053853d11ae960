package io.rediskit.support;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisReadOnlyException;
import io.rediskit.support.SharedLettuceConnection.Shared;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Whether Redis is worth asking: one per connection factory, shared by every primitive through the executors
 * it {@link #guard(ScriptExecutor) guards}. When a call fails because Redis is unavailable (a command timeout,
 * a refused or reset connection, {@code LOADING}, {@code BUSY}: {@link RedisFailures#isUnavailable}), every
 * later call is refused at once with a {@link RedisUnavailableException}, which each primitive treats as the
 * outage it is (a limiter applies its failure policy, a lock is not acquired, a queue consumer backs off), so a
 * caller waits for at most the one command timeout that found the outage, not one per call. A {@code PING},
 * sent one probe interval after the outage was found and again one interval after each failed {@code PING}
 * (never two at once), ends the refusals as soon as Redis answers it; the next call goes to Redis as usual.
 * A log line says when refusals start and when they end.
 * <p>
 * Limits: calls already sent when Redis stalled each wait for their own timeout (they were sent before anything
 * was known); a caller interrupted while connecting does not start refusals, nor does a {@code READONLY} reply
 * (a live replica answers {@code PING}, so it could not end them); on Redis Cluster one master that does not answer refuses calls to every slot until a
 * {@code PING} (sent to the cluster's default node) is answered, up to one probe interval per stall. The
 * {@code PING} runs on the shared native Lettuce connection without blocking; on any other factory it borrows
 * a connection and blocks for at most the command timeout, which is why it is sent from the background's executor,
 * never from its scheduler.
 * <p>
 * No thread is started before the first outage; the probe is timed on the {@link Background} given, the
 * application's shared one, or on threads of its own when none is given, which {@link #close()} stops.
 */
public final class RedisAvailability implements AutoCloseable {

	/**
	 * The longest probe interval: service resumes about one interval after Redis does, so a longer one keeps every
	 * call refused long after Redis answers again (a typo of 1000000d would refuse them for good).
	 */
	public static final Duration MAX_PROBE_INTERVAL = Duration.ofMinutes(1);

	private static final Log logger = LogFactory.getLog(RedisAvailability.class);

	private final Supplier<CompletionStage<?>> ping;

	private final Duration probeInterval;

	private final Background background;

	/** The threads of its own when none were given, closed with it. */
	private final @Nullable Background own;

	private final Listeners<RedisAvailabilityListener> listeners;

	private final AtomicReference<@Nullable Outage> outage = new AtomicReference<>();

	// Calls sent before Redis answered the last PING may still time out afterwards: they tell nothing new.
	private volatile long availableSinceNanos = System.nanoTime();

	private final ReentrantLock lifecycle = new ReentrantLock();

	private @Nullable ScheduledFuture<?> nextProbe;

	private volatile boolean closed;

	RedisAvailability(Supplier<CompletionStage<?>> ping, Duration probeInterval, @Nullable Background background,
			List<? extends RedisAvailabilityListener> listeners) {
		Objects.requireNonNull(probeInterval, "probeInterval");
		if (probeInterval.isNegative() || probeInterval.isZero() || probeInterval.compareTo(MAX_PROBE_INTERVAL) > 0) {
			throw new IllegalArgumentException("probeInterval must be positive and at most " + MAX_PROBE_INTERVAL
					+ ", was " + probeInterval);
		}
		this.ping = ping;
		this.probeInterval = probeInterval;
		this.own = (background != null) ? null : Background.standalone("availability");
		this.background = (background != null) ? background : this.own;
		this.listeners = Listeners.of("Redis availability", listeners);
	}

	/**
	 * The availability of the Redis behind a connection factory.
	 * @param connectionFactory the factory whose Redis is probed, the one the guarded executors use
	 * @param probeInterval how long after the outage was found, and after each failed {@code PING}, the next
	 * {@code PING} is sent; positive, at most {@link #MAX_PROBE_INTERVAL}
	 * @param background the application's threads for the probe, shared by every primitive, or {@code null} for
	 * threads of its own
	 * @param listeners told when refusals start and end, and of each refused call
	 * @return the availability, considering Redis available until a call says otherwise
	 * @throws IllegalArgumentException if {@code probeInterval} is not positive or above {@link #MAX_PROBE_INTERVAL}
	 */
	public static RedisAvailability of(RedisConnectionFactory connectionFactory, Duration probeInterval,
			@Nullable Background background, List<? extends RedisAvailabilityListener> listeners) {
		Objects.requireNonNull(connectionFactory, "connectionFactory");
		return new RedisAvailability(ping(connectionFactory), probeInterval, background, listeners);
	}

	private static Supplier<CompletionStage<?>> ping(RedisConnectionFactory connectionFactory) {
		if (connectionFactory instanceof LettuceConnectionFactory lettuce && lettuce.getShareNativeConnection()) {
			SharedLettuceConnection shared = new SharedLettuceConnection(lettuce);
			return () -> {
				Shared connection = shared.get();
				RedisFuture<String> pong = connection.commands().ping();
				connection.bound(pong);
				return pong;
			};
		}
		return () -> {
			try (RedisConnection connection = connectionFactory.getConnection()) {
				return CompletableFuture.completedFuture(connection.ping());
			}
		};
	}

	/** @return the probe interval */
	public Duration probeInterval() {
		return this.probeInterval;
	}

	/** @return whether calls go to Redis: no outage was found since Redis last answered */
	public boolean isAvailable() {
		return this.outage.get() == null;
	}

	/** @return since when calls are refused, or {@code null} while Redis is available */
	public @Nullable Instant unavailableSince() {
		Outage current = this.outage.get();
		return (current != null) ? current.since : null;
	}

	/**
	 * Guards an executor: its calls are refused at once while Redis is unavailable, and a call that finds an
	 * outage starts the refusals.
	 * @param executor the executor to guard
	 * @return the guarded executor, as native as the given one
	 */
	public ScriptExecutor guard(ScriptExecutor executor) {
		return new GuardedScriptExecutor(executor, this);
	}

	/**
	 * Guards an executor: its calls are refused at once while Redis is unavailable, and a call that finds an
	 * outage starts the refusals.
	 * @param executor the executor to guard
	 * @return the guarded executor, as native as the given one
	 */
	public CommandExecutor guard(CommandExecutor executor) {
		return new GuardedCommandExecutor(executor, this);
	}

	/**
	 * Makes one call to Redis through this gate: refused at once while Redis is unavailable; an outage it
	 * finds starts the refusals.
	 * @param <T> the reply type
	 * @param call the call
	 * @return the call's reply
	 * @throws RedisUnavailableException while Redis is unavailable, without calling
	 */
	public <T> T call(Supplier<T> call) {
		refuseIfUnavailable();
		long started = System.nanoTime();
		try {
			return call.get();
		}
		catch (RuntimeException ex) {
			// An interrupted caller (a cancelled task) says nothing about Redis.
			if (!Thread.currentThread().isInterrupted()) {
				failed(ex, started);
			}
			throw ex;
		}
	}

	/**
	 * Makes one asynchronous call to Redis through this gate: refused at once while Redis is unavailable; an
	 * outage it finds starts the refusals before the returned stage completes.
	 * @param <T> the reply type
	 * @param call the call
	 * @return the call's reply; completed exceptionally with a {@link RedisUnavailableException}, without
	 * calling, while Redis is unavailable
	 */
	public <T> CompletionStage<T> callAsync(Supplier<? extends CompletionStage<T>> call) {
		Outage current = this.outage.get();
		if (current != null) {
			return CompletableFuture.failedFuture(refused(current));
		}
		long started = System.nanoTime();
		CompletionStage<T> reply;
		try {
			reply = call.get();
		}
		catch (RuntimeException ex) {
			failed(ex, started);
			throw ex;
		}
		// A dependent stage, so that the caller hears of the failure only once the gate knows of it.
		return reply.whenComplete((value, failure) -> {
			if (failure != null) {
				failed(Stages.unwrap(failure), started);
			}
		});
	}

	private void refuseIfUnavailable() {
		Outage current = this.outage.get();
		if (current != null) {
			throw refused(current);
		}
	}

	private RedisUnavailableException refused(Outage current) {
		this.listeners.notify(RedisAvailabilityListener::onRefused);
		return new RedisUnavailableException("Redis is unavailable since " + current.since + " (" + current.cause
				+ "); redis-kit refuses its calls without asking Redis until it answers a PING, sent every "
				+ this.probeInterval.toMillis() + " ms");
	}

	private void failed(Throwable failure, long startedNanos) {
		if (this.closed || failure instanceof RedisUnavailableException || !RedisFailures.isUnavailable(failure)
				|| isCause(failure, RedisReadOnlyException.class) || isCause(failure, InterruptedException.class)
				|| startedNanos - this.availableSinceNanos < 0) {
			return;
		}
		Outage found = new Outage(Instant.now(), System.nanoTime(), String.valueOf(failure.getMessage()));
		if (!this.outage.compareAndSet(null, found)) {
			return;
		}
		logger.warn("Redis is unavailable (" + found.cause + "): redis-kit refuses its calls at once, without waiting"
				+ " for Redis, until Redis answers a PING, sent every " + this.probeInterval.toMillis() + " ms");
		this.listeners.notify((listener) -> listener.onUnavailable(failure));
		scheduleProbe();
	}

	private static boolean isCause(Throwable failure, Class<? extends Throwable> type) {
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() == cause) ? null : cause.getCause()) {
			if (type.isInstance(cause)) {
				return true;
			}
		}
		return false;
	}

	private void scheduleProbe() {
		this.lifecycle.lock();
		try {
			if (this.closed) {
				return;
			}
			// A PING on a borrowed connection blocks: sent from the executor, so that the scheduler never waits.
			this.nextProbe = this.background.schedule(() -> this.background.executor().execute(this::probe),
					this.probeInterval);
		}
		catch (RuntimeException ex) {
			// The scheduler is shutting down with the application: nobody could end the refusals, so end them now.
			logger.debug("Cannot schedule a PING of Redis; calls go to Redis again", ex);
			this.outage.set(null);
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	private void probe() {
		if (this.closed) {
			return;
		}
		CompletionStage<?> pong;
		try {
			pong = this.ping.get();
		}
		catch (RuntimeException ex) {
			pong = CompletableFuture.failedFuture(ex);
		}
		pong.whenComplete((reply, failure) -> {
			if (failure == null) {
				recovered();
			}
			else {
				logger.debug("Redis did not answer a PING; asking again in " + this.probeInterval.toMillis() + " ms",
						failure);
				scheduleProbe();
			}
		});
	}

	private void recovered() {
		Outage ended = this.outage.get();
		if (ended == null) {
			return;
		}
		this.availableSinceNanos = System.nanoTime();
		this.outage.set(null);
		Duration refusedFor = Duration.ofNanos(System.nanoTime() - ended.sinceNanos);
		logger.info("Redis answers again after " + refusedFor.toMillis() + " ms: redis-kit's calls go to Redis again");
		this.listeners.notify((listener) -> listener.onAvailable(refusedFor));
	}

	/**
	 * Stops probing and lets every call through; threads of its own are stopped, the application's are left
	 * running.
	 */
	@Override
	public void close() {
		this.lifecycle.lock();
		try {
			this.closed = true;
			this.outage.set(null);
			ScheduledFuture<?> probe = this.nextProbe;
			if (probe != null) {
				probe.cancel(false);
			}
			if (this.own != null) {
				this.own.close();
			}
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	/**
	 * An outage found by a call.
	 * @param since when, for the health report
	 * @param sinceNanos when, for the duration
	 * @param cause the failure's message
	 */
	private record Outage(Instant since, long sinceNanos, String cause) {
	}

}
