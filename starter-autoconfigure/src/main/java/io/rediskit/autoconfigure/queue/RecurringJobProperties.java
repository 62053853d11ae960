package io.rediskit.autoconfigure.queue;

import java.time.Duration;
import java.time.ZoneId;

import io.rediskit.queue.MissedSlots;
import io.rediskit.queue.RecurringJobSpec;
import org.jspecify.annotations.Nullable;

/**
 * One recurring job, under {@code redis-kit.queue.recurring.<job>}: a queue and either a cron expression or a
 * fixed rate; the other settings have defaults (see {@link RecurringJobSpec}).
 *
 * <pre>{@code
 * redis-kit:
 *   queue:
 *     recurring:
 *       nightly-report:
 *         queue: reports
 *         cron: "0 0 2 * * *"
 *         zone: Europe/Paris
 *         missed-slots: run-once
 * }</pre>
 */
public class RecurringJobProperties {

	/**
	 * Queue each slot's message goes to; it must be configured under redis-kit.queue.queues.
	 */
	private @Nullable String queue;

	/**
	 * Cron expression of the slots: second, minute, hour, day of month, month, day of week, or a macro such as
	 * '@daily'. Set this or fixed-rate.
	 */
	private @Nullable String cron;

	/**
	 * Time between slots, the multiples of it since the epoch, from 10ms to 366 days. Set this or cron.
	 */
	private @Nullable Duration fixedRate;

	/**
	 * Zone the cron expression is read in, such as 'Europe/Paris'.
	 */
	private ZoneId zone = ZoneId.of("UTC");

	/**
	 * What happens to slots missed while no instance could enqueue them: skip, run-once (the latest) or run-each
	 * (up to the 100 latest).
	 */
	private MissedSlots missedSlots = MissedSlots.RUN_ONCE;

	/**
	 * How late a slot may still be enqueued as on time; later, it is missed. Keep it above the scheduling delay
	 * of a loaded instance.
	 */
	private Duration grace = RecurringJobSpec.DEFAULT_GRACE;

	public @Nullable String getQueue() {
		return this.queue;
	}

	public void setQueue(@Nullable String queue) {
		this.queue = queue;
	}

	public @Nullable String getCron() {
		return this.cron;
	}

	public void setCron(@Nullable String cron) {
		this.cron = cron;
	}

	public @Nullable Duration getFixedRate() {
		return this.fixedRate;
	}

	public void setFixedRate(@Nullable Duration fixedRate) {
		this.fixedRate = fixedRate;
	}

	public ZoneId getZone() {
		return this.zone;
	}

	public void setZone(ZoneId zone) {
		this.zone = zone;
	}

	public MissedSlots getMissedSlots() {
		return this.missedSlots;
	}

	public void setMissedSlots(MissedSlots missedSlots) {
		this.missedSlots = missedSlots;
	}

	public Duration getGrace() {
		return this.grace;
	}

	public void setGrace(Duration grace) {
		this.grace = grace;
	}

}
