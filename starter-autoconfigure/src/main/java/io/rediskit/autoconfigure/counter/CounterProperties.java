package io.rediskit.autoconfigure.counter;

import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;

import io.rediskit.bitmap.CheckInCalendarSpec;
import io.rediskit.bitmap.DailyActivitySpec;
import io.rediskit.counter.BucketSize;
import io.rediskit.counter.UniqueCounterSpec;
import io.rediskit.support.Names;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Counter settings, under {@code redis-kit.counter}: the feature of the page "Counters", whatever Redis structure
 * holds them: unique counters (HyperLogLog), check-in calendars and daily activities (bitmaps) by name.
 *
 * <pre>{@code
 * redis-kit:
 *   counter:
 *     counters:
 *       page-views:
 *         bucket: daily
 *         zone: Europe/Paris
 *         retention: 400d
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
 * Checked when the registry is built, by the rules of {@link UniqueCounterSpec}, {@link CheckInCalendarSpec},
 * {@link DailyActivitySpec} and {@link Names}.
 */
@ConfigurationProperties(prefix = "redis-kit.counter", ignoreUnknownFields = false)
public class CounterProperties {


	/**
	 * Whether to auto-configure the unique counters, check-in calendars, daily activities and packed counters.
	 */
	private boolean enabled = true;

	/**
	 * Unique counters by name: letters, digits, '_' and '-', at most 64 characters, no '.'.
	 */
	private Map<String, Counter> counters = new LinkedHashMap<>();

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

	public Map<String, Counter> getCounters() {
		return this.counters;
	}

	public void setCounters(Map<String, Counter> counters) {
		this.counters = counters;
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

	/**
	 * One unique counter.
	 */
	public static class Counter {

		/**
		 * Time buckets of the counter: hourly or daily.
		 */
		private BucketSize bucket = BucketSize.DAILY;

		/**
		 * Time zone whose days or hours are the buckets, such as Europe/Paris.
		 */
		private ZoneId zone = ZoneId.of("UTC");

		/**
		 * How long a bucket is kept after it ends, from 1s to 36500d (100 years); unset for ever.
		 */
		private @Nullable Duration retention;

		/**
		 * How long the merge of a range is reused by counts of the same range, from 1ms to 1h.
		 */
		private Duration rangeCacheTtl = UniqueCounterSpec.DEFAULT_RANGE_CACHE_TTL;

		public BucketSize getBucket() {
			return this.bucket;
		}

		public void setBucket(BucketSize bucket) {
			this.bucket = bucket;
		}

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

		public Duration getRangeCacheTtl() {
			return this.rangeCacheTtl;
		}

		public void setRangeCacheTtl(Duration rangeCacheTtl) {
			this.rangeCacheTtl = rangeCacheTtl;
		}

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

	}

}
