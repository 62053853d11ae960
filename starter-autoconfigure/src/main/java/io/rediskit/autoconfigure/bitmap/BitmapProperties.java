package io.rediskit.autoconfigure.bitmap;

import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;

import io.rediskit.bitmap.CheckInCalendarSpec;
import io.rediskit.autoconfigure.support.NamedEntry;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.Names;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Bitmap settings, under {@code redis-kit.bitmap}: check-in calendars by name.
 *
 * <pre>{@code
 * redis-kit:
 *   bitmap:
 *     calendars:
 *       daily-login:
 *         zone: Asia/Tokyo
 *         retention: 365d
 * }</pre>
 *
 * Validated when bound by the rules of {@link CheckInCalendarSpec} and {@link Names}.
 */
@ConfigurationProperties(prefix = "redis-kit.bitmap", ignoreUnknownFields = false)
public class BitmapProperties implements Validator {

	private static final String PREFIX = "redis-kit.bitmap.";

	/**
	 * Whether to auto-configure check-in calendars and packed counters.
	 */
	private boolean enabled = true;

	/**
	 * Check-in calendars by name: letters, digits, '_' and '-', at most 64 characters, no '.'.
	 */
	private Map<String, Calendar> calendars = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Map<String, Calendar> getCalendars() {
		return this.calendars;
	}

	public void setCalendars(Map<String, Calendar> calendars) {
		this.calendars = calendars;
	}

	@Override
	public boolean supports(Class<?> type) {
		return Calendar.class.isAssignableFrom(type);
	}

	@Override
	public void validate(Object target, Errors errors) {
		Calendar calendar = (Calendar) target;
		String property = NamedEntry.property(errors, PREFIX + "calendars.", "calendar");
		if (property == null) {
			return;
		}
		NamedEntry.checkSpec(errors, property, calendar::toSpec);
	}

	/**
	 * One check-in calendar.
	 */
	public static class Calendar {

		/**
		 * Time zone whose calendar days are check-in days, such as Asia/Tokyo.
		 */
		private ZoneId zone = ZoneId.of("UTC");

		/**
		 * How long a user's month is kept after the month ends, from 1s to 36500d (100 years); unset for ever.
		 */
		private @Nullable Duration retention;

		public ZoneId getZone() {
			return this.zone;
		}

		public void setZone(ZoneId zone) {
			this.zone = zone;
		}

		public @Nullable Duration getRetention() {
			return this.retention;
		}

		public void setRetention(@Nullable Duration retention) {
			this.retention = retention;
		}

		/**
		 * @return the core spec these settings describe, built anew on each call
		 * @throws InvalidSpecException if a value is out of range
		 */
		public CheckInCalendarSpec toSpec() {
			return new CheckInCalendarSpec(this.zone, this.retention);
		}

	}

}
