package io.rediskit.bitmap;

import java.util.Objects;
import java.util.Set;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.ConfiguredSpecs;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.NamedSpecs;
import io.rediskit.support.Observations;
import io.rediskit.support.ObservedCalls;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.SpecConflictException;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Hands out {@link CheckInCalendar}s, {@link DailyActivity} bitmaps and {@link PackedCounters} by name: configured
 * calendars and activities (in Spring Boot, under {@code redis-kit.counter.calendars} and
 * {@code redis-kit.counter.activities}) through {@link #calendar(String)} and {@link #activity(String)}, others
 * through {@link #createCalendar}, {@link #createActivity} and {@link #createPackedCounters}. Each name has one spec: creating with the spec a name
 * already has returns its handle, and another spec for a configured or created name throws
 * {@link SpecConflictException} (see {@link NamedSpecs} for the rule). A changed configuration (a refresh) gives a
 * configured calendar a new handle on the next {@link #calendar(String)}.
 */
public class BitmapRegistry {

	private final ScriptExecutor scripts;

	private final CommandExecutor commands;

	private final KeyNaming keyNaming;

	private volatile Observations observations = Observations.NOOP;

	private final NamedSpecs<CheckInCalendarSpec, RedisCheckInCalendar> calendars;

	private final NamedSpecs<PackedCounterSpec, RedisPackedCounters> counters;

	private final NamedSpecs<DailyActivitySpec, RedisDailyActivity> activities;

	/**
	 * A registry of calendars and counters created in code only.
	 * @param connectionFactory where they run
	 * @param keyNaming names the Redis keys
	 */
	public BitmapRegistry(RedisConnectionFactory connectionFactory, KeyNaming keyNaming) {
		this(ScriptExecutor.of(connectionFactory), CommandExecutor.of(connectionFactory), keyNaming, (name) -> null);
	}

	/**
	 * A registry that also serves configured calendars.
	 * @param scripts runs the check-in and streak scripts
	 * @param commands runs the bit commands
	 * @param keyNaming names the Redis keys
	 * @param configuredCalendars the configured spec of a calendar name, or {@code null} (and the configured names, the
	 * closest of which an unknown name's error suggests)
	 */
	public BitmapRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
			ConfiguredSpecs<CheckInCalendarSpec> configuredCalendars) {
		this(scripts, commands, keyNaming, configuredCalendars, (name) -> null);
	}

	/**
	 * A registry that also serves configured calendars and activities.
	 * @param scripts runs the scripts
	 * @param commands runs the bit commands
	 * @param keyNaming names the Redis keys
	 * @param configuredCalendars the configured spec of a calendar name, or {@code null} (and the configured names, the
	 * closest of which an unknown name's error suggests)
	 * @param configuredActivities the configured spec of an activity name, or {@code null} (and the configured names,
	 * the closest of which an unknown name's error suggests)
	 */
	public BitmapRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
			ConfiguredSpecs<CheckInCalendarSpec> configuredCalendars,
			ConfiguredSpecs<DailyActivitySpec> configuredActivities) {
		this.scripts = Objects.requireNonNull(scripts, "scripts must not be null");
		this.commands = Objects.requireNonNull(commands, "commands must not be null");
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		this.calendars = new NamedSpecs<>("check-in calendar", "redis-kit.counter.calendars", configuredCalendars,
				this::newCalendar, (calendar, spec) -> newCalendar(calendar.name(), spec));
		this.counters = new NamedSpecs<>("packed counters", null, (name) -> null, this::newPackedCounters,
				(counters, spec) -> newPackedCounters(counters.name(), spec));
		this.activities = new NamedSpecs<>("daily activity", "redis-kit.counter.activities", configuredActivities,
				this::newActivity, (activity, spec) -> newActivity(activity.name(), spec));
	}

	/**
	 * Observes every call of the calendars, activities and counters as {@link RedisKitObservation#BITMAP_OPERATION}.
	 * @param observations the application's, {@link Observations#NOOP} (the default) for none
	 */
	public void setObservations(Observations observations) {
		this.observations = Objects.requireNonNull(observations, "observations must not be null");
	}

	private Observations observations() {
		return this.observations;
	}

	/**
	 * The calendar of a name; a changed configuration gives a new handle.
	 * @param name a configured name, or one passed to {@link #createCalendar}
	 * @return the calendar
	 * @throws IllegalArgumentException if no calendar has the name
	 * @throws SpecConflictException if the name was created in code with another spec than it is configured with
	 * now
	 */
	public CheckInCalendar calendar(String name) {
		return this.calendars.get(name);
	}

	/**
	 * Creates a calendar, or returns the one a name has if it has this spec (configured or created before).
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters
	 * @param spec its zone and retention
	 * @return the calendar
	 * @throws IllegalArgumentException if the name is not valid
	 * @throws SpecConflictException if the name is configured, or was created, with another spec
	 */
	public CheckInCalendar createCalendar(String name, CheckInCalendarSpec spec) {
		return this.calendars.create(name, spec);
	}

	/**
	 * Creates packed counters, or returns those a name has if they have this spec.
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters
	 * @param spec width, signedness, overflow mode and bound
	 * @return the counters
	 * @throws IllegalArgumentException if the name is not valid
	 * @throws SpecConflictException if the name was created with another spec: the stored bits would be read
	 * with another width
	 */
	public PackedCounters createPackedCounters(String name, PackedCounterSpec spec) {
		return this.counters.create(name, spec);
	}

	/**
	 * @param name a name passed to {@link #createPackedCounters}
	 * @return the counters
	 * @throws IllegalArgumentException if none have the name
	 */
	public PackedCounters packedCounters(String name) {
		return this.counters.get(name);
	}

	/**
	 * The daily activity of a name; a changed configuration gives a new handle.
	 * @param name a configured name, or one passed to {@link #createActivity}
	 * @return the activity
	 * @throws IllegalArgumentException if no activity has the name
	 * @throws SpecConflictException if the name was created in code with another spec than it is configured with
	 * now
	 */
	public DailyActivity activity(String name) {
		return this.activities.get(name);
	}

	/**
	 * Creates a daily activity, or returns the one a name has if it has this spec (configured or created before).
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters
	 * @param spec its zone, user id bound and retention
	 * @return the activity
	 * @throws IllegalArgumentException if the name is not valid
	 * @throws SpecConflictException if the name is configured, or was created, with another spec
	 */
	public DailyActivity createActivity(String name, DailyActivitySpec spec) {
		return this.activities.create(name, spec);
	}

	/** @return the names of the activities used so far */
	public Set<String> activityNames() {
		return this.activities.names();
	}

	/** @return the names of the calendars used so far */
	public Set<String> calendarNames() {
		return this.calendars.names();
	}

	private RedisCheckInCalendar newCalendar(String name, CheckInCalendarSpec spec) {
		return new RedisCheckInCalendar(name, spec, this.scripts, this.commands, this.keyNaming,
				new ObservedCalls("Check-in calendar", RedisKitObservation.BITMAP_OPERATION, name, this::observations,
						LogFactory.getLog(RedisCheckInCalendar.class)));
	}

	private RedisDailyActivity newActivity(String name, DailyActivitySpec spec) {
		return new RedisDailyActivity(name, spec, this.scripts, this.commands, this.keyNaming,
				new ObservedCalls("Daily activity", RedisKitObservation.BITMAP_OPERATION, name, this::observations,
						LogFactory.getLog(RedisDailyActivity.class)));
	}

	private RedisPackedCounters newPackedCounters(String name, PackedCounterSpec spec) {
		return new RedisPackedCounters(name, spec, this.commands, this.keyNaming,
				new ObservedCalls("Packed counters", RedisKitObservation.BITMAP_OPERATION, name, this::observations,
						LogFactory.getLog(RedisPackedCounters.class)));
	}

}
