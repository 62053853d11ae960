package io.rediskit.bitmap;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Objects;

import io.rediskit.support.Expiry;
import io.rediskit.support.InvalidSpecException;
import org.jspecify.annotations.Nullable;

/**
 * A check-in calendar's time zone (for check-ins given as instants) and how long a month is kept after it ends.
 *
 * @param zone the zone whose calendar days are check-in days; explicit, never the JVM's default
 * @param retention how long a user's month is kept after the month ends, from 1 s to {@link Expiry#MAX 100 years};
 * {@code null} for ever. A check-in into a month already past it is refused
 * ({@link io.rediskit.support.RetentionPassedException})
 */
public record CheckInCalendarSpec(ZoneId zone, @Nullable Duration retention) {

	/**
	 * Validates the spec.
	 * @throws InvalidSpecException naming the component and the reason
	 */
	public CheckInCalendarSpec {
		Objects.requireNonNull(zone, "zone must not be null");
		if (retention != null && retention.compareTo(Duration.ofSeconds(1)) < 0) {
			throw new InvalidSpecException("retention", "must be at least 1s, was " + retention);
		}
		Expiry.requireAtMostMax("retention", retention);
	}

	/**
	 * A calendar kept for ever.
	 * @param zone its zone
	 * @return the spec
	 */
	public static CheckInCalendarSpec of(ZoneId zone) {
		return new CheckInCalendarSpec(zone, null);
	}

	/**
	 * @param retention how long a month is kept after it ends
	 * @return a copy with that retention
	 */
	public CheckInCalendarSpec withRetention(@Nullable Duration retention) {
		return new CheckInCalendarSpec(this.zone, retention);
	}

}
