package io.rediskit.autoconfigure.bitmap;

import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;

import io.rediskit.bitmap.CheckInCalendarSpec;
import io.rediskit.bitmap.DailyActivitySpec;
import io.rediskit.autoconfigure.support.NamedEntry;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.Names;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Bitmap settings, under {@code redis-kit.bitmap}: check-in calendars and daily activities by name.
 *
 * <pre>{@code
 * redis-kit:
 *   bitmap:
 *     calendars:
 *       daily-login:
 *         zone: Asia/Tokyo
 *         retention: 365d
 *     activities:
 *       dau:
 *         zone: Europe/Paris
 *         max-user-id: 8388607
 *         retention: 400d
 * }</pre>
 *
 * Validated when bound by the rules of {@link CheckInCalendarSpec}, {@link DailyActivitySpec} and {@link Names}.
 */
@ConfigurationProperties(prefix = "redis-kit.bitmap", ignoreUnknownFields = false)
public class BitmapProperties implements Validator {

	private static final String PREFIX = "redis-kit.bitmap.";

	/**
	 * Whether to auto-configure check-in calendars, daily activities and packed counters.
	 */
	private boolean enabled = true;

	/**
	 * Check-in calendars by name: letters, digits, '_' and '-', at most 64 characters, no '.'.
	 */
	private Map<String, Calendar> calendars = new LinkedHashMap<>();

	/**
	 * Daily activities (a bitmap of active user ids per day) by name: letters, digits, '_' and '-', at most 64
	 * characters, no '.'.
	 */
	private Map<String, Activity> activities = new LinkedHashMap<>();

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

	public Map<String, Activity> getActivities() {
		return this.activities;
	}

	public void setActivities(Map<String, Activity> activities) {
		this.activities = activities;
	}

	@Override
	public boolean supports(Class<?> type) {
		return Calendar.class.isAssignableFrom(type) || Activity.class.isAssignableFrom(type);
	}

	@Override
	public void validate(Object target, Errors errors) {
		if (target instanceof Activity activity) {
			String property = NamedEntry.property(errors, PREFIX + "activities.", "activity");
			if (property != null) {
				NamedEntry.checkSpec(errors, property, activity::toSpec);
			}
			return;
		}
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

	/**
	 * One daily activity.
	 */
	public static class Activity {

		/**
		 * Time zone whose calendar days are the days of activity, such as Europe/Paris.
		 */
		private ZoneId zone = ZoneId.of("UTC");

		/**
		 * Largest user id accepted, from 0 to 4294967295; a day's bitmap takes up to (max-user-id + 1) / 8 bytes.
		 */
		private long maxUserId = DailyActivitySpec.DEFAULT_MAX_USER_ID;

		/**
		 * How long a day is kept after it ends, from 1s to 36500d (100 years); unset for ever.
		 */
		private @Nullable Duration retention;

		public ZoneId getZone() {
			return this.zone;
		}

		public void setZone(ZoneId zone) {
			this.zone = zone;
		}

		public long getMaxUserId() {
			return this.maxUserId;
		}

		public void setMaxUserId(long maxUserId) {
			this.maxUserId = maxUserId;
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
		public DailyActivitySpec toSpec() {
			return new DailyActivitySpec(this.zone, this.maxUserId, this.retention);
		}

	}

}
