package io.rediskit.autoconfigure.counter;

import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Supplier;

import io.rediskit.autoconfigure.support.Durations;
import io.rediskit.autoconfigure.support.EntryNames;
import io.rediskit.bitmap.BitmapRegistry;
import io.rediskit.bitmap.CheckInCalendarSpec;
import io.rediskit.bitmap.DailyActivity;
import io.rediskit.bitmap.DailyActivitySpec;
import io.rediskit.counter.UniqueCounter;
import io.rediskit.counter.UniqueCounterRegistry;
import io.rediskit.counter.UniqueCounterSpec;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * Actuator endpoint {@code rediskitcounter}: every configured or used unique counter with its all-time count,
 * check-in calendar, and daily activity with the users active today ({@code GET /actuator/rediskitcounter}). Each
 * count is one command on one key ({@code PFCOUNT}, or {@code BITCOUNT} of today's bitmap), never a scan; a
 * check-in calendar keeps one key per user and month, so it has no count that would not be a scan. The web console
 * reads the same descriptors.
 */
@Endpoint(id = "rediskitcounter")
public class RedisCounterEndpoint {

	private final @Nullable UniqueCounterRegistry counters;

	private final @Nullable BitmapRegistry bitmaps;

	private final CounterProperties properties;

	/**
	 * @param counters the unique counters, or {@code null}
	 * @param bitmaps the check-in calendars and daily activities, or {@code null}
	 * @param properties the configured entries
	 */
	public RedisCounterEndpoint(@Nullable UniqueCounterRegistry counters, @Nullable BitmapRegistry bitmaps,
			CounterProperties properties) {
		this.counters = counters;
		this.bitmaps = bitmaps;
		this.properties = properties;
	}

	/** @return how many counters, calendars and activities are configured or used */
	public int size() {
		int size = 0;
		if (this.counters != null) {
			size += EntryNames.of(this.counters.names(), this.properties.getCounters()).size();
		}
		if (this.bitmaps != null) {
			size += EntryNames.of(this.bitmaps.calendarNames(), this.properties.getCalendars()).size()
					+ EntryNames.of(this.bitmaps.activityNames(), this.properties.getActivities()).size();
		}
		return size;
	}

	/** @return the counters, calendars and activities, each by name */
	@ReadOperation
	public CountersDescriptor counters() {
		UniqueCounterRegistry counters = this.counters;
		BitmapRegistry bitmaps = this.bitmaps;
		List<CounterDescriptor> counted = (counters != null)
				? EntryNames.of(counters.names(), this.properties.getCounters()).stream()
					.map((name) -> describe(() -> counter(name, counters.get(name)),
							(error) -> new CounterDescriptor(name, null, null, null, null, error)))
					.toList()
				: List.of();
		List<CalendarDescriptor> calendars = (bitmaps != null)
				? EntryNames.of(bitmaps.calendarNames(), this.properties.getCalendars()).stream()
					.map((name) -> describe(() -> calendar(name, bitmaps.calendar(name).spec()),
							(error) -> new CalendarDescriptor(name, null, null, error)))
					.toList()
				: List.of();
		List<ActivityDescriptor> activities = (bitmaps != null)
				? EntryNames.of(bitmaps.activityNames(), this.properties.getActivities()).stream()
					.map((name) -> describe(() -> activity(name, bitmaps.activity(name)),
							(error) -> new ActivityDescriptor(name, null, null, null, null, error)))
					.toList()
				: List.of();
		return new CountersDescriptor(counters != null, counted, bitmaps != null, calendars, activities);
	}

	private static CounterDescriptor counter(String name, UniqueCounter counter) {
		UniqueCounterSpec spec = counter.spec();
		return new CounterDescriptor(name, spec.bucket().name().toLowerCase(Locale.ROOT), spec.zone().getId(),
				text(spec.retention()), counter.count(), null);
	}

	private static ActivityDescriptor activity(String name, DailyActivity activity) {
		DailyActivitySpec spec = activity.spec();
		LocalDate today = LocalDate.now(spec.zone());
		// One BITCOUNT of today's bitmap: bounded by the spec's largest user id, never a scan.
		return new ActivityDescriptor(name, spec.zone().getId(), text(spec.retention()), today.toString(),
				activity.count(today), null);
	}

	private static CalendarDescriptor calendar(String name, CheckInCalendarSpec spec) {
		return new CalendarDescriptor(name, spec.zone().getId(), text(spec.retention()), null);
	}

	// One entry's failure (Redis down, a spec conflict) shows on its row, not as a failed read.
	private static <D> D describe(Supplier<D> described, Function<String, D> failed) {
		try {
			return described.get();
		}
		catch (RuntimeException ex) {
			return failed.apply(String.valueOf(ex.getMessage()));
		}
	}

	private static @Nullable String text(@Nullable Duration duration) {
		return (duration != null) ? Durations.format(duration) : null;
	}

	/**
	 * The endpoint's response.
	 * @param countersConfigured whether unique counters are on
	 * @param counters the unique counters
	 * @param bitmapsConfigured whether check-in calendars and daily activities are on
	 * @param calendars the check-in calendars
	 * @param activities the daily activities
	 */
	public record CountersDescriptor(boolean countersConfigured, List<CounterDescriptor> counters,
			boolean bitmapsConfigured, List<CalendarDescriptor> calendars, List<ActivityDescriptor> activities) {
	}

	/**
	 * One unique counter.
	 * @param name its name
	 * @param bucket its bucket ({@code day}, {@code hour}, ...)
	 * @param zone the zone of its buckets
	 * @param retention how long a bucket is kept ({@code 400d}), {@code null} for ever
	 * @param count its all-time count, estimated ({@code PFCOUNT})
	 * @param error why it could not be read
	 */
	public record CounterDescriptor(String name, @Nullable String bucket, @Nullable String zone,
			@Nullable String retention, @Nullable Long count, @Nullable String error) {
	}

	/**
	 * One check-in calendar.
	 * @param name its name
	 * @param zone the zone of its days
	 * @param retention how long a month is kept, {@code null} for ever
	 * @param error why it could not be read
	 */
	public record CalendarDescriptor(String name, @Nullable String zone, @Nullable String retention,
			@Nullable String error) {
	}

	/**
	 * One daily activity.
	 * @param name its name
	 * @param zone the zone of its days
	 * @param retention how long a day is kept, {@code null} for ever
	 * @param today today's date in that zone
	 * @param activeToday the users active today ({@code BITCOUNT})
	 * @param error why it could not be read
	 */
	public record ActivityDescriptor(String name, @Nullable String zone, @Nullable String retention,
			@Nullable String today, @Nullable Long activeToday, @Nullable String error) {
	}

}
