package io.rediskit.ratelimit;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.rediskit.ratelimit.RateLimitScripts.Evaluation;
import io.rediskit.ratelimit.RateLimitScripts.Prepared;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Observations;
import io.rediskit.support.Listeners;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.Stages;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The {@link RateLimiter} of a {@link RateLimiterRegistry}: one script call per decision. Its spec can be
 * replaced while it runs; the state in Redis stays, so a new limit or period applies to the usage already
 * counted.
 */
final class RedisRateLimiter implements RateLimiter {

	private static final Log logger = LogFactory.getLog(RedisRateLimiter.class);

	// Sliding-log members: unique across JVMs by the random part, within one by the counter.
	private static final String MEMBER_PREFIX = Long.toString(new SecureRandom().nextLong() & Long.MAX_VALUE, 36) + ".";

	private static final AtomicLong memberSequence = new AtomicLong();

	private final String name;

	private final ScriptExecutor scripts;

	private final CommandExecutor commands;

	private final KeyNaming keyNaming;

	private final Listeners<RateLimitListener> listeners;

	private final ThrottledLog outages;

	private final Supplier<Observations> observations;

	private volatile Prepared prepared;

	RedisRateLimiter(String name, RateLimitSpec spec, ScriptExecutor scripts, CommandExecutor commands,
			KeyNaming keyNaming, Listeners<RateLimitListener> listeners, Supplier<Observations> observations) {
		this.name = name;
		this.observations = observations;
		this.prepared = Prepared.of(spec);
		this.scripts = scripts;
		this.commands = commands;
		this.keyNaming = keyNaming;
		this.listeners = listeners;
		this.outages = new ThrottledLog(logger, Duration.ofSeconds(10),
				"Rate limiter '" + name + "' cannot reach Redis");
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public RateLimitSpec spec() {
		return this.prepared.spec();
	}

	void update(RateLimitSpec spec) {
		this.prepared = Prepared.of(spec);
	}

	@Override
	public RateLimitDecision tryAcquire(String key, int permits) {
		return evaluate(key, permits, null).decision();
	}

	@Override
	public CompletionStage<RateLimitDecision> tryAcquireAsync(String key, int permits) {
		return evaluateAsync(key, permits, null).thenApply(Evaluation::decision);
	}

	/**
	 * Decides, reporting the server time of the decision; with {@code pinnedNowMicros} at that time instead of
	 * the server's (tests only). Outages become the failure policy's decision, with server time {@code -1}.
	 */
	Evaluation evaluate(String key, int permits, @Nullable Long pinnedNowMicros) {
		Prepared prepared = this.prepared;
		RateLimitSpec current = prepared.spec();
		byte[][] keysAndArgs = keysAndArgs(prepared, key, permits, pinnedNowMicros);
		long start = System.nanoTime();
		Observation observation = this.observations.get()
			.start(RedisKitObservation.RATE_LIMIT, this.name, current.algorithm().keyPart());
		Evaluation evaluation;
		try {
			List<Object> reply;
			// In scope while the script is sent: the driver's command span is the decision's child.
			try (Observation.Scope scope = observation.openScope()) {
				reply = this.scripts.execute(RateLimitScripts.script(current.algorithm()), ReturnType.MULTI, 1,
						keysAndArgs);
			}
			evaluation = RateLimitScripts.read(reply, current);
		}
		catch (RuntimeException ex) {
			try {
				evaluation = onFailure(ex, current);
			}
			catch (RuntimeException failure) {
				Observations.stop(observation, "error", failure);
				throw failure;
			}
			Observations.stop(observation, outcome(evaluation), ex);
			return decided(evaluation, start);
		}
		Observations.stop(observation, outcome(evaluation));
		return decided(evaluation, start);
	}

	private static String outcome(Evaluation evaluation) {
		return evaluation.decision().allowed() ? "allowed" : "rejected";
	}

	/** {@link #evaluate} without blocking: the stage completes on the driver's thread. */
	CompletionStage<Evaluation> evaluateAsync(String key, int permits, @Nullable Long pinnedNowMicros) {
		Prepared prepared = this.prepared;
		RateLimitSpec current = prepared.spec();
		// Invalid arguments are the caller's error: thrown at once, as by the sync path.
		byte[][] keysAndArgs = keysAndArgs(prepared, key, permits, pinnedNowMicros);
		long start = System.nanoTime();
		Observation observation = this.observations.get()
			.start(RedisKitObservation.RATE_LIMIT, this.name, current.algorithm().keyPart());
		CompletionStage<List<Object>> call;
		// In scope while the script is dispatched, on this thread only: the driver's command span is the decision's
		// child, and the scope is closed before the stage completes anywhere.
		try (Observation.Scope scope = observation.openScope()) {
			call = this.scripts.executeAsync(RateLimitScripts.script(current.algorithm()), ReturnType.MULTI, 1,
					keysAndArgs);
		}
		catch (RuntimeException ex) {
			Observations.stop(observation, "error", ex);
			throw ex;
		}
		return call
			.handle((reply, failure) -> {
				Evaluation evaluation;
				try {
					evaluation = (failure == null) ? RateLimitScripts.read(reply, current)
							: onFailure(unwrap(failure), current);
				}
				catch (RuntimeException ex) {
					Observations.stop(observation, "error", ex);
					throw new CompletionException(ex);
				}
				Observations.stop(observation, outcome(evaluation), (failure != null) ? unwrap(failure) : null);
				return decided(evaluation, start);
			});
	}

	private byte[][] keysAndArgs(Prepared prepared, String key, int permits, @Nullable Long pinnedNowMicros) {
		RateLimitSpec current = prepared.spec();
		checkPermits(current, permits);
		String member = (current.algorithm() == RateLimitAlgorithm.SLIDING_LOG)
				? MEMBER_PREFIX + Long.toString(memberSequence.incrementAndGet(), 36) + "." : null;
		return RateLimitScripts.keysAndArgs(prepared, redisKey(current, key), permits, member, pinnedNowMicros);
	}

	/** An outage is the failure policy's to decide; any other failure is the caller's to see. */
	private Evaluation onFailure(Throwable failure, RateLimitSpec current) {
		if (!RedisFailures.isUnavailable(failure)) {
			throw (failure instanceof RuntimeException runtime) ? runtime : new CompletionException(failure);
		}
		RuntimeException outage = (RuntimeException) failure;
		this.listeners.notify((listener) -> listener.onFailure(this.name, outage));
		this.outages.warn(failure, "applying " + current.failurePolicy());
		return new Evaluation(RateLimitDecision.ofFailure(current.failurePolicy(), current.capacity()), -1, current);
	}

	private Evaluation decided(Evaluation evaluation, long startNanos) {
		Duration latency = Duration.ofNanos(System.nanoTime() - startNanos);
		this.listeners.notify((listener) -> listener.onDecision(this.name, evaluation.decision(), latency));
		return evaluation;
	}

	@Override
	public RateLimitDecision acquire(String key, int permits, Duration maxWait) throws InterruptedException {
		Objects.requireNonNull(maxWait, "maxWait must not be null");
		if (maxWait.isNegative()) {
			throw new IllegalArgumentException("maxWait must not be negative, was " + maxWait);
		}
		long deadline = System.nanoTime() + maxWait.toNanos();
		while (true) {
			RateLimitDecision decision = tryAcquire(key, permits);
			if (decision.allowed() || decision.fromFailurePolicy()) {
				return decision;
			}
			long wait = decision.retryAfter().toNanos();
			if (System.nanoTime() + wait - deadline > 0) {
				return decision;
			}
			TimeUnit.NANOSECONDS.sleep(wait);
		}
	}

	@Override
	public RateLimitState peek(String key) {
		return Stages.join(peekAsync(key));
	}

	@Override
	public CompletionStage<RateLimitState> peekAsync(String key) {
		return peekAsync(key, null);
	}

	/** {@link #peekAsync(String)} at {@code pinnedNowMicros} instead of the server's time (tests only). */
	CompletionStage<RateLimitState> peekAsync(String key, @Nullable Long pinnedNowMicros) {
		Prepared prepared = this.prepared;
		RateLimitSpec current = prepared.spec();
		byte[][] keysAndArgs = RateLimitScripts.peekKeysAndArgs(prepared, redisKey(current, key), pinnedNowMicros);
		return this.scripts.<List<Object>>executeAsync(RateLimitScripts.peekScript(current.algorithm()),
				ReturnType.MULTI, 1, keysAndArgs)
			.thenApply((reply) -> RateLimitScripts.readPeek(reply, current));
	}

	@Override
	public void reset(String key) {
		Stages.join(resetAsync(key));
	}

	@Override
	public CompletionStage<@Nullable Void> resetAsync(String key) {
		byte[] redisKey = redisKey(spec(), key);
		return this.commands.executeAsync("DEL", ReturnType.INTEGER, redisKey).thenApply((deleted) -> null);
	}

	private byte[] redisKey(RateLimitSpec spec, String key) {
		Objects.requireNonNull(key, "key must not be null");
		// The limiter name holds no ':' (see Names), so name and key cannot run into each other.
		return this.keyNaming.key("ratelimit:" + spec.algorithm().keyPart(), this.name + ":" + key)
			.getBytes(StandardCharsets.UTF_8);
	}

	private static void checkPermits(RateLimitSpec spec, int permits) {
		if (permits < 1) {
			throw new IllegalArgumentException("permits must be at least 1, was " + permits);
		}
		if (permits > spec.capacity()) {
			throw new IllegalArgumentException("permits must not exceed the limiter's capacity of " + spec.capacity()
					+ " (more could never be granted), was " + permits);
		}
	}

	private static Throwable unwrap(Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

}
