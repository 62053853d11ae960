package io.rediskit.queue;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.Names;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.support.CronExpression;

/**
 * One recurring job: the queue its slots go to, when its slots are (a cron expression in a zone, or a fixed
 * rate), and what happens to slots missed while no instance could enqueue them. Validated here, once; a bad
 * value throws {@link InvalidSpecException} naming the component.
 * <p>
 * A cron expression has Spring's six fields (second, minute, hour, day of month, month, day of week) or a macro
 * such as {@code @daily}, and is read in {@code zone} (UTC unless given: instances in different zones then still
 * agree on every slot). Fixed-rate slots are the multiples of the rate since the epoch, so every instance computes
 * the same ones; use a cron expression for times of day in a zone.
 * @param queue the queue the slots are enqueued to, as {@link RecurringSlot} messages
 * @param cron a cron expression, or {@code null} with a fixed rate
 * @param fixedRate the time between slots, from 10ms to 366 days, or {@code null} with a cron expression
 * @param zone the zone the cron expression is read in
 * @param missedSlots what happens to missed slots
 * @param grace how late a slot may still be enqueued as on time; a slot later than that is missed, from 0 to 366
 * days
 */
public record RecurringJobSpec(String queue, @Nullable String cron, @Nullable Duration fixedRate, ZoneId zone,
		MissedSlots missedSlots, Duration grace) {

	/** The grace unless given: a minute, like Quartz's misfire threshold; a restart takes about as long. */
	public static final Duration DEFAULT_GRACE = Duration.ofMinutes(1);

	private static final Duration MIN_RATE = Duration.ofMillis(10);

	private static final Duration MAX = Duration.ofDays(366);

	/**
	 * @throws InvalidSpecException naming the component and the reason when a value is invalid
	 */
	public RecurringJobSpec {
		if (queue == null || !Names.isValid(queue)) {
			throw new InvalidSpecException("queue", "must be a queue name (" + Names.RULE + "), was '" + queue + "'");
		}
		if ((cron == null) == (fixedRate == null)) {
			throw new InvalidSpecException("cron", (cron == null) ? "or fixed-rate must be set"
					: "and fixed-rate cannot both be set; choose one");
		}
		if (cron != null) {
			parse(cron);
		}
		if (fixedRate != null && (fixedRate.compareTo(MIN_RATE) < 0 || fixedRate.compareTo(MAX) > 0)) {
			throw new InvalidSpecException("fixedRate", "must be between 10ms and 366 days, was " + fixedRate);
		}
		Objects.requireNonNull(zone, "zone must not be null");
		Objects.requireNonNull(missedSlots, "missedSlots must not be null");
		if (grace == null || grace.isNegative() || grace.compareTo(MAX) > 0) {
			throw new InvalidSpecException("grace", "must be between 0 and 366 days, was " + grace);
		}
	}

	/**
	 * A job on a cron expression, in UTC, running one missed slot after downtime, with the default grace.
	 * @param queue the queue
	 * @param cron the cron expression
	 * @return the spec
	 */
	public static RecurringJobSpec cron(String queue, String cron) {
		return new RecurringJobSpec(queue, cron, null, ZoneOffset.UTC, MissedSlots.RUN_ONCE, DEFAULT_GRACE);
	}

	/**
	 * A job at a fixed rate, running one missed slot after downtime, with the default grace.
	 * @param queue the queue
	 * @param rate the time between slots
	 * @return the spec
	 */
	public static RecurringJobSpec fixedRate(String queue, Duration rate) {
		return new RecurringJobSpec(queue, null, rate, ZoneOffset.UTC, MissedSlots.RUN_ONCE, DEFAULT_GRACE);
	}

	/**
	 * @param zone the zone the cron expression is read in
	 * @return a copy with this zone
	 */
	public RecurringJobSpec withZone(ZoneId zone) {
		return new RecurringJobSpec(this.queue, this.cron, this.fixedRate, zone, this.missedSlots, this.grace);
	}

	/**
	 * @param missedSlots what happens to missed slots
	 * @return a copy with this policy
	 */
	public RecurringJobSpec withMissedSlots(MissedSlots missedSlots) {
		return new RecurringJobSpec(this.queue, this.cron, this.fixedRate, this.zone, missedSlots, this.grace);
	}

	/**
	 * @param grace how late a slot may still be enqueued as on time
	 * @return a copy with this grace
	 */
	public RecurringJobSpec withGrace(Duration grace) {
		return new RecurringJobSpec(this.queue, this.cron, this.fixedRate, this.zone, this.missedSlots, grace);
	}

	/**
	 * Reads a zone id the way the spec reports it.
	 * @param zone a zone id such as {@code Europe/Paris} or {@code UTC}
	 * @return the zone
	 * @throws InvalidSpecException naming {@code zone} when there is no such zone
	 */
	public static ZoneId zone(String zone) {
		try {
			return ZoneId.of(zone.trim());
		}
		catch (DateTimeException ex) {
			throw new InvalidSpecException("zone", "must be a zone id such as UTC or Europe/Paris, was '" + zone + "'");
		}
	}

	/** @return the schedule as configured: the cron expression, or {@code every <rate>} */
	public String describe() {
		return (this.cron != null) ? this.cron : "every " + this.fixedRate;
	}

	Schedule schedule() {
		return (this.cron != null) ? new CronSchedule(parse(this.cron), this.zone)
				: new RateSchedule(Objects.requireNonNull(this.fixedRate).toMillis());
	}

	private static CronExpression parse(String cron) {
		try {
			return CronExpression.parse(cron);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidSpecException("cron", "must be a cron expression (second minute hour day month weekday),"
					+ " was '" + cron + "': " + ex.getMessage());
		}
	}

	/** When the slots of a job are. */
	interface Schedule {

		/** @return the first slot strictly after the time, in epoch ms, or -1 if there is none */
		long next(long afterMillis);

	}

	private record CronSchedule(CronExpression expression, ZoneId zone) implements Schedule {

		@Override
		public long next(long afterMillis) {
			var next = this.expression.next(Instant.ofEpochMilli(afterMillis).atZone(this.zone));
			return (next != null) ? next.toInstant().toEpochMilli() : -1;
		}

	}

	private record RateSchedule(long rateMillis) implements Schedule {

		@Override
		public long next(long afterMillis) {
			return Math.floorDiv(afterMillis, this.rateMillis) * this.rateMillis + this.rateMillis;
		}

	}

}
