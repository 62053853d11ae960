package io.rediskit.ratelimit;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.stream.Collectors;

import io.rediskit.support.Expiry;
import io.rediskit.support.InvalidSpecException;
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
 * @param limit permits per period, from 1 to {@link #MAX_COUNT 2<sup>53</sup>}
 * @param period the period, from 1 ms to {@link #MAX_PERIOD 50 years}; held in whole microseconds
 * @param burst for {@link RateLimitAlgorithm#TOKEN_BUCKET} and {@link RateLimitAlgorithm#GCRA} the most permits
 * admitted at once after a quiet spell; {@code null} for the limit
 * @param failurePolicy the answer when Redis cannot be reached
 */
public record RateLimitSpec(RateLimitAlgorithm algorithm, long limit, Duration period, @Nullable Long burst,
		FailurePolicy failurePolicy) {

	/** Shortest period accepted. */
	public static final Duration MIN_PERIOD = Duration.ofMillis(1);

	/**
	 * Longest period accepted: 50 years, half of {@link Expiry#MAX}, the bound of every TTL. A limiter's keys
	 * live up to two periods, and the scripts compute times of up to twice the period in microseconds on the
	 * server's clock, in Lua numbers (doubles), which are exact only up to 2<sup>53</sup>.
	 */
	public static final Duration MAX_PERIOD = Expiry.MAX.dividedBy(2);

	/**
	 * Longest time a key may take to refill from empty to its capacity, {@code period * capacity / limit}:
	 * {@link Expiry#MAX} (100 years), since the key lives that long.
	 */
	public static final Duration MAX_REFILL = Expiry.MAX;

	/** Largest limit or burst accepted: 2<sup>53</sup>, the largest count Lua numbers hold exactly. */
	public static final long MAX_COUNT = 1L << 53;

	/**
	 * Validates the spec.
	 * @throws InvalidSpecException naming the component and the reason, when a value is out of range (too
	 * large ones included: they would overflow in the scripts) or a burst is given to an algorithm without one
	 * @throws NullPointerException if the algorithm, period or failure policy is missing
	 */
	public RateLimitSpec {
		Objects.requireNonNull(algorithm, "algorithm must not be null");
		Objects.requireNonNull(period, "period must not be null");
		Objects.requireNonNull(failurePolicy, "failurePolicy must not be null");
		if (limit < 1) {
			throw new InvalidSpecException("limit", "must be at least 1, was " + limit);
		}
		if (limit > MAX_COUNT) {
			throw new InvalidSpecException("limit", "must be at most " + MAX_COUNT
					+ " (2^53, the largest count the scripts' Lua numbers hold exactly), was " + limit);
		}
		if (period.compareTo(MIN_PERIOD) < 0) {
			throw new InvalidSpecException("period", "must be at least 1ms, was " + period);
		}
		if (period.compareTo(MAX_PERIOD) > 0) {
			throw new InvalidSpecException("period", "must be at most " + MAX_PERIOD.toDays()
					+ " days (50 years; the scripts compute in microseconds, exact only up to 2^53), was " + period);
		}
		if (burst != null) {
			if (!algorithm.supportsBurst()) {
				throw new InvalidSpecException("burst", "applies to " + burstAlgorithms() + " only, not to "
						+ algorithm + "; remove it or change the algorithm");
			}
			if (burst < 1) {
				throw new InvalidSpecException("burst", "must be at least 1, was " + burst);
			}
			if (burst > MAX_COUNT) {
				throw new InvalidSpecException("burst", "must be at most " + MAX_COUNT
						+ " (2^53, the largest count the scripts' Lua numbers hold exactly), was " + burst);
			}
			// Only a burst above the limit can make the refill longer than the period.
			double refillMicros = (double) (period.toNanos() / 1000) * burst / limit;
			if (refillMicros > MAX_REFILL.toNanos() / 1000) {
				throw new InvalidSpecException("burst", "of " + burst + " at " + limit + " per " + period
						+ " takes longer than " + MAX_REFILL.toDays()
						+ " days (100 years) to refill, which the scripts cannot compute exactly; lower it");
			}
		}
	}

	private static String burstAlgorithms() {
		return Arrays.stream(RateLimitAlgorithm.values())
			.filter(RateLimitAlgorithm::supportsBurst)
			.map(Enum::name)
			.collect(Collectors.joining(" and "));
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
