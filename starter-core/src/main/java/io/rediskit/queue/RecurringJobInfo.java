package io.rediskit.queue;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A recurring job as this instance sees it, for the actuator endpoint and diagnostics.
 * @param name the job's name
 * @param spec its spec
 * @param lastSlot the last slot taken by any instance, as of this instance's last call, or {@code null} if
 * unknown or none yet
 * @param nextSlot the next slot to be enqueued, or {@code null} if the schedule has no more slots
 * @param lastSlotTakenBy the name of the instance that took the last slot (enqueued it, or passed it over), as
 * {@link RecurringJobs#setInstanceName} named it, or {@code null} if unknown: none yet, or taken by an instance of a
 * version that did not record it. Its message runs on whichever instance claims it from the queue.
 */
public record RecurringJobInfo(String name, RecurringJobSpec spec, @Nullable Instant lastSlot,
		@Nullable Instant nextSlot, @Nullable String lastSlotTakenBy) {

	/**
	 * A job whose last slot's taker is not known.
	 * @param name the job's name
	 * @param spec its spec
	 * @param lastSlot the last slot taken by any instance, or {@code null}
	 * @param nextSlot the next slot to be enqueued, or {@code null}
	 */
	public RecurringJobInfo(String name, RecurringJobSpec spec, @Nullable Instant lastSlot,
			@Nullable Instant nextSlot) {
		this(name, spec, lastSlot, nextSlot, null);
	}

}
