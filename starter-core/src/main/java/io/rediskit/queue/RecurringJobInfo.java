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
 */
public record RecurringJobInfo(String name, RecurringJobSpec spec, @Nullable Instant lastSlot,
		@Nullable Instant nextSlot) {
}
