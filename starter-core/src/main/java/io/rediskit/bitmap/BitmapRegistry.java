package io.rediskit.bitmap;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.Names;
import io.rediskit.support.ScriptExecutor;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Hands out {@link CheckInCalendar}s and {@link PackedCounters} by name: configured calendars (in Spring Boot,
 * under {@code redis-kit.bitmap.calendars}) through {@link #calendar(String)}, others through
 * {@link #createCalendar} and {@link #createPackedCounters}.
 */
public class BitmapRegistry {

	private final ScriptExecutor scripts;

	private final CommandExecutor commands;

	private final KeyNaming keyNaming;

	private final Listeners<BitmapListener> listeners;

	private final Function<String, @Nullable CheckInCalendarSpec> configuredCalendars;

	private final ConcurrentMap<String, RedisCheckInCalendar> calendars = new ConcurrentHashMap<>();

	private final ConcurrentMap<String, RedisPackedCounters> counters = new ConcurrentHashMap<>();

	/**
	 * A registry of calendars and counters created in code only.
	 * @param connectionFactory where they run
	 * @param keyNaming names the Redis keys
	 * @param listener told of every call
	 */
	public BitmapRegistry(RedisConnectionFactory connectionFactory, KeyNaming keyNaming, BitmapListener listener) {
		this(ScriptExecutor.of(connectionFactory), CommandExecutor.of(connectionFactory), keyNaming, List.of(listener),
				(name) -> null);
	}

	/**
	 * A registry that also serves configured calendars.
	 * @param scripts runs the check-in and streak scripts
	 * @param commands runs the bit commands
	 * @param keyNaming names the Redis keys
	 * @param listeners told of every call, in order
	 * @param configuredCalendars the configured spec of a calendar name, or {@code null}
	 */
	public BitmapRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
			List<? extends BitmapListener> listeners, Function<String, @Nullable CheckInCalendarSpec> configuredCalendars) {
		this.scripts = Objects.requireNonNull(scripts, "scripts must not be null");
		this.commands = Objects.requireNonNull(commands, "commands must not be null");
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		this.listeners = Listeners.of("bitmap", listeners);
		this.configuredCalendars = Objects.requireNonNull(configuredCalendars, "configuredCalendars must not be null");
	}

	/**
	 * The calendar of a name.
	 * @param name a configured name, or one passed to {@link #createCalendar}
	 * @return the calendar
	 * @throws IllegalArgumentException if no calendar has the name
	 */
	public CheckInCalendar calendar(String name) {
		Objects.requireNonNull(name, "name must not be null");
		CheckInCalendarSpec configured = this.configuredCalendars.apply(name);
		RedisCheckInCalendar calendar = this.calendars.get(name);
		if (calendar != null && (configured == null || configured.equals(calendar.spec()))) {
			return calendar;
		}
		if (configured == null) {
			throw new IllegalArgumentException("No check-in calendar named '" + name
					+ "': configure redis-kit.bitmap.calendars." + name + " or create it in code first");
		}
		return createCalendar(name, configured);
	}

	/**
	 * Creates a calendar, or gives a name a new spec.
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters
	 * @param spec its zone and retention
	 * @return the calendar
	 */
	public CheckInCalendar createCalendar(String name, CheckInCalendarSpec spec) {
		Objects.requireNonNull(spec, "spec must not be null");
		Names.requireValid("Check-in calendar", name);
		return this.calendars.compute(name, (key, existing) -> (existing != null && existing.spec().equals(spec)) ? existing
				: new RedisCheckInCalendar(key, spec, this.scripts, this.commands, this.keyNaming,
						new BitmapCalls("Check-in calendar", key, this.listeners)));
	}

	/**
	 * Creates packed counters, or gives a name a new spec (the stored bits are read with the new width).
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters
	 * @param spec width, signedness, overflow mode and bound
	 * @return the counters
	 */
	public PackedCounters createPackedCounters(String name, PackedCounterSpec spec) {
		Objects.requireNonNull(spec, "spec must not be null");
		Names.requireValid("Packed counters", name);
		return this.counters.compute(name, (key, existing) -> (existing != null && existing.spec().equals(spec)) ? existing
				: new RedisPackedCounters(key, spec, this.commands, this.keyNaming,
						new BitmapCalls("Packed counters", key, this.listeners)));
	}

	/**
	 * @param name a name passed to {@link #createPackedCounters}
	 * @return the counters
	 * @throws IllegalArgumentException if none have the name
	 */
	public PackedCounters packedCounters(String name) {
		RedisPackedCounters existing = this.counters.get(name);
		if (existing == null) {
			throw new IllegalArgumentException("No packed counters named '" + name + "': create them in code first");
		}
		return existing;
	}

	/** @return the names of the calendars used so far */
	public Set<String> calendarNames() {
		return new TreeSet<>(this.calendars.keySet());
	}

}
