package io.rediskit.ratelimit;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.rediskit.ratelimit.RateLimitScripts.Evaluation;
import io.rediskit.support.KeyNaming;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The {@link RateLimiter} of a {@link RateLimiterRegistry}: one script call per decision. Its spec can be
 * replaced while it runs; the state in Redis stays, so a new limit or period applies to the usage already
 * counted.
 */
final class RedisRateLimiter implements RateLimiter {

	private static final Log logger = LogFactory.getLog(RedisRateLimiter.class);

	private static final long FAILURE_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

	// Sliding-log members: unique across JVMs by the random part, within one by the counter.
	private static final String MEMBER_PREFIX = Long.toString(new SecureRandom().nextLong() & Long.MAX_VALUE, 36) + ".";

	private static final AtomicLong memberSequence = new AtomicLong();

	private final String name;

	private final RedisConnectionFactory connectionFactory;

	private final KeyNaming keyNaming;

	private final RateLimitListener listener;

	private volatile RateLimitSpec spec;

	private volatile @Nullable RateLimitSpec lastConfigured;

	private volatile long lastFailureLog = System.nanoTime() - FAILURE_LOG_INTERVAL_NANOS;

	RedisRateLimiter(String name, RateLimitSpec spec, RedisConnectionFactory connectionFactory, KeyNaming keyNaming,
			RateLimitListener listener) {
		this.name = name;
		this.spec = spec;
		this.connectionFactory = connectionFactory;
		this.keyNaming = keyNaming;
		this.listener = listener;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public RateLimitSpec spec() {
		return this.spec;
	}

	void update(RateLimitSpec spec) {
		this.spec = spec;
	}

	/** Applies a configured spec unless it is the one applied last, so specs set in code survive until config changes. */
	void applyConfigured(RateLimitSpec configured) {
		if (!configured.equals(this.lastConfigured)) {
			this.lastConfigured = configured;
			this.spec = configured;
		}
	}

	@Override
	public RateLimitDecision tryAcquire(String key, int permits) {
		return evaluate(key, permits, null).decision();
	}

	/**
	 * Decides, reporting the server time of the decision; with {@code pinnedNowMicros} at that time instead of
	 * the server's (tests only). Failures become the failure policy's decision, with server time {@code -1}.
	 */
	Evaluation evaluate(String key, int permits, @Nullable Long pinnedNowMicros) {
		RateLimitSpec current = this.spec;
		checkPermits(current, permits);
		long start = System.nanoTime();
		Evaluation evaluation;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			String member = (current.algorithm() == RateLimitAlgorithm.SLIDING_LOG)
					? MEMBER_PREFIX + Long.toString(memberSequence.incrementAndGet(), 36) + "." : null;
			evaluation = RateLimitScripts.evaluate(connection, current, redisKey(current, key), permits, member,
					pinnedNowMicros);
		}
		catch (DataAccessException ex) {
			if (!isUnavailable(ex)) {
				throw ex;
			}
			failed(ex, current.failurePolicy());
			evaluation = new Evaluation(RateLimitDecision.ofFailure(current.failurePolicy(), current.capacity()), -1,
					current);
		}
		Duration latency = Duration.ofNanos(System.nanoTime() - start);
		try {
			this.listener.onDecision(this.name, evaluation.decision(), latency);
		}
		catch (RuntimeException ex) {
			logger.warn("Rate limit listener failed on a decision of '" + this.name + "'", ex);
		}
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
	public void reset(String key) {
		byte[] redisKey = redisKey(this.spec, key);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.keyCommands().del(redisKey);
		}
	}

	private byte[] redisKey(RateLimitSpec spec, String key) {
		Objects.requireNonNull(key, "key must not be null");
		// The limiter name holds no ':' (the registry checks), so name and key cannot run into each other.
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

	private void failed(DataAccessException ex, FailurePolicy policy) {
		try {
			this.listener.onFailure(this.name, ex);
		}
		catch (RuntimeException listenerFailure) {
			logger.warn("Rate limit listener failed on a failure of '" + this.name + "'", listenerFailure);
		}
		long now = System.nanoTime();
		long last = this.lastFailureLog;
		// One warning per interval: an outage must not flood the log with one line per request.
		if (now - last >= FAILURE_LOG_INTERVAL_NANOS) {
			this.lastFailureLog = now;
			logger.warn("Rate limiter '" + this.name + "' cannot reach Redis; applying " + policy
					+ " (further failures in the next 10s are counted, not logged): " + ex.getMessage());
		}
	}

	/** Whether Redis could not answer (down, unreachable, too slow, loading), as opposed to rejecting the command. */
	static boolean isUnavailable(DataAccessException ex) {
		if (ex instanceof DataAccessResourceFailureException || ex instanceof TransientDataAccessException) {
			return true;
		}
		for (Throwable cause = ex.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
			String type = cause.getClass().getName();
			if (type.equals("io.lettuce.core.RedisCommandTimeoutException")
					|| type.equals("io.lettuce.core.RedisConnectionException")
					|| type.equals("io.lettuce.core.RedisLoadingException")
					|| type.equals("io.lettuce.core.RedisBusyException")
					|| type.equals("io.lettuce.core.RedisReadOnlyException")) {
				return true;
			}
		}
		return false;
	}

}
