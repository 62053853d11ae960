package io.rediskit.support;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The one upper bound of every duration redis-kit turns into a Redis TTL or expiry time: a lock's lease, a
 * Bloom filter's {@code ttl}, a unique counter's or check-in calendar's {@code retention}, a geo member's
 * {@code member-ttl}, the keys of a rate limiter. Each spec checks its durations here, so that the bound and its
 * message are the same in every area.
 * <p>
 * The bound, {@link #MAX} (36 500 days, 100 years), is far beyond any real use and keeps the arithmetic exact:
 * the scripts add durations to the server's clock in microseconds, in Lua numbers (doubles, exact up to
 * 2<sup>53</sup>: now plus 100 years is about 2<sup>52</sup>), and the client times waits in nanoseconds, which
 * overflow a {@code long} after about 292 years. A setting whose meaning calls for less keeps a tighter bound of
 * its own, derived from this one where it is about expiry (a rate limiter's keys live up to two periods, so the
 * period stops at half of it) and stated with the setting.
 */
public final class Expiry {

	/** Longest duration that becomes a TTL or expiry: 36 500 days (100 years). */
	public static final Duration MAX = Duration.ofDays(36_500);

	private static final Duration MIN = Duration.ofMillis(1);

	private Expiry() {
	}

	/**
	 * Rejects a duration above {@link #MAX}.
	 * @param component the spec's component, for the message, such as {@code ttl}
	 * @param value the duration, or {@code null} for none (for ever), which passes
	 * @throws InvalidSpecException naming the component, such as
	 * {@code ttl must be at most 36500 days (100 years), was PT24000000H}
	 */
	public static void requireAtMostMax(String component, @Nullable Duration value) {
		if (value != null && value.compareTo(MAX) > 0) {
			throw new InvalidSpecException(component,
					"must be at most " + MAX.toDays() + " days (100 years), was " + value);
		}
	}

	/**
	 * Rejects a duration that is missing, under 1 ms or above {@link #MAX}.
	 * @param component the spec's component, for the message, such as {@code openFor}
	 * @param value the duration
	 * @throws InvalidSpecException naming the component, such as {@code openFor must be positive, was PT0S}
	 */
	public static void requirePositive(String component, Duration value) {
		Objects.requireNonNull(value, () -> component + " must not be null");
		if (value.isNegative() || value.isZero()) {
			throw new InvalidSpecException(component, "must be positive, was " + value);
		}
		if (value.compareTo(MIN) < 0) {
			throw new InvalidSpecException(component, "must be at least 1ms, was " + value);
		}
		requireAtMostMax(component, value);
	}

}
