package io.rediskit.ratelimit;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * What a limiter allows: {@code limit} permits per {@code period} with an {@link RateLimitAlgorithm algorithm},
 * an optional {@code burst} for the algorithms that have one, and the {@link FailurePolicy}. Immutable;
 * {@code with...} methods return copies.
 *
 * <pre>{@code
 * RateLimitSpec spec = RateLimitSpec.of(RateLimitAlgorithm.GCRA, 30, Duration.ofMinutes(1)).withBurst(16);
 * }</pre>
 *
 * @param algorithm how permits are counted
 * @param limit permits per period, at least 1
 * @param period the period, from 1 ms up; held in whole microseconds
 * @param burst for {@link RateLimitAlgorithm#TOKEN_BUCKET} and {@link RateLimitAlgorithm#GCRA} the most permits
 * admitted at once after a quiet spell; {@code null} for the limit
 * @param failurePolicy the answer when Redis cannot be reached
 */
public record RateLimitSpec(RateLimitAlgorithm algorithm, long limit, Duration period, @Nullable Long burst,
		FailurePolicy failurePolicy) {

	/** Shortest period accepted. */
	public static final Duration MIN_PERIOD = Duration.ofMillis(1);

	/**
	 * Validates the spec.
	 * @throws IllegalArgumentException with the reason, when a value is out of range or a burst is given to an
	 * algorithm without one
	 */
	public RateLimitSpec {
		Objects.requireNonNull(algorithm, "algorithm must not be null");
		Objects.requireNonNull(period, "period must not be null");
		Objects.requireNonNull(failurePolicy, "failurePolicy must not be null");
		if (limit < 1) {
			throw new IllegalArgumentException("limit must be at least 1, was " + limit);
		}
		if (period.compareTo(MIN_PERIOD) < 0) {
			throw new IllegalArgumentException("period must be at least 1ms, was " + period);
		}
		if (burst != null) {
			if (!algorithm.supportsBurst()) {
				throw new IllegalArgumentException("burst applies to TOKEN_BUCKET and GCRA only, not to " + algorithm
						+ "; remove it or change the algorithm");
			}
			if (burst < 1) {
				throw new IllegalArgumentException("burst must be at least 1, was " + burst);
			}
		}
	}

	/**
	 * A spec with no burst (the limit is the burst where the algorithm has one) that fails open.
	 * @param algorithm how permits are counted
	 * @param limit permits per period
	 * @param period the period
	 * @return the spec
	 */
	public static RateLimitSpec of(RateLimitAlgorithm algorithm, long limit, Duration period) {
		return new RateLimitSpec(algorithm, limit, period, null, FailurePolicy.FAIL_OPEN);
	}

	/**
	 * @param burst the most permits admitted at once, for {@link RateLimitAlgorithm#TOKEN_BUCKET} and
	 * {@link RateLimitAlgorithm#GCRA}
	 * @return a copy with that burst
	 */
	public RateLimitSpec withBurst(long burst) {
		return new RateLimitSpec(this.algorithm, this.limit, this.period, burst, this.failurePolicy);
	}

	/**
	 * @param failurePolicy the answer when Redis cannot be reached
	 * @return a copy with that policy
	 */
	public RateLimitSpec withFailurePolicy(FailurePolicy failurePolicy) {
		return new RateLimitSpec(this.algorithm, this.limit, this.period, this.burst, failurePolicy);
	}

	/**
	 * The most permits one call can ever be granted, and the {@link RateLimitDecision#limit() limit} its
	 * decisions report: the burst where the algorithm has one and it is set, else the limit.
	 * @return the capacity
	 */
	public long capacity() {
		return (this.burst != null) ? this.burst : this.limit;
	}

	long periodMicros() {
		return Math.max(1, this.period.toNanos() / 1000);
	}

}
