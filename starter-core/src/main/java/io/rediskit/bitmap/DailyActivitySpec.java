package io.rediskit.bitmap;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Objects;

import io.rediskit.support.Expiry;
import io.rediskit.support.InvalidSpecException;
import org.jspecify.annotations.Nullable;

/**
 * What one {@link DailyActivity} keeps: a bitmap per day in {@code zone}, indexed by user ids from 0 to
 * {@code maxUserId}, each day kept {@code retention} after it ends.
 *
 * <pre>{@code
 * DailyActivitySpec spec = DailyActivitySpec.of(ZoneId.of("Europe/Paris")).withRetention(Duration.ofDays(400));
 * }</pre>
 *
 * @param zone the zone whose calendar days are the days of activity; explicit, never the JVM's default
 * @param maxUserId the largest user id accepted, from 0 to {@link #MAX_USER_ID}: a day's bitmap grows to
 * {@code (maxUserId + 1) / 8} bytes once that id is marked, so the bound is what one day may cost. An id above it
 * is refused before Redis, since an id near 2<sup>32</sup> would allocate 512 MB
 * @param retention how long a day is kept after it ends, from 1 s to {@link Expiry#MAX 100 years}; {@code null} for
 * ever. A mark on a day already past it is refused ({@link io.rediskit.support.RetentionPassedException})
 */
public record DailyActivitySpec(ZoneId zone, long maxUserId, @Nullable Duration retention) {

	/** Largest bound accepted: a Redis string holds at most 2<sup>32</sup> bits. */
	public static final long MAX_USER_ID = (1L << 32) - 1;

	/** Bound used unless one is given: 2<sup>23</sup> users, 1 MiB per day at most. */
	public static final long DEFAULT_MAX_USER_ID = (1L << 23) - 1;

	/**
	 * Validates the spec.
	 * @throws InvalidSpecException naming the component and the reason
	 */
	public DailyActivitySpec {
		Objects.requireNonNull(zone, "zone must not be null");
		if (maxUserId < 0 || maxUserId > MAX_USER_ID) {
			throw new InvalidSpecException("maxUserId", "must be from 0 to " + MAX_USER_ID + " (2^32 - 1), was " + maxUserId);
		}
		if (retention != null && retention.compareTo(Duration.ofSeconds(1)) < 0) {
			throw new InvalidSpecException("retention", "must be at least 1s, was " + retention);
		}
		Expiry.requireAtMostMax("retention", retention);
	}

	/**
	 * Days in a zone, kept for ever, for user ids up to {@link #DEFAULT_MAX_USER_ID}.
	 * @param zone the zone
	 * @return the spec
	 */
	public static DailyActivitySpec of(ZoneId zone) {
		return new DailyActivitySpec(zone, DEFAULT_MAX_USER_ID, null);
	}

	/**
	 * @param maxUserId the largest user id accepted
	 * @return a copy with that bound
	 */
	public DailyActivitySpec withMaxUserId(long maxUserId) {
		return new DailyActivitySpec(this.zone, maxUserId, this.retention);
	}

	/**
	 * @param retention how long a day is kept after it ends; {@code null} for ever
	 * @return a copy with that retention
	 */
	public DailyActivitySpec withRetention(@Nullable Duration retention) {
		return new DailyActivitySpec(this.zone, this.maxUserId, retention);
	}

}
