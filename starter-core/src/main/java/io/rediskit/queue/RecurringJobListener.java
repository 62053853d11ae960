package io.rediskit.queue;

import java.time.Duration;
import java.time.Instant;

/**
 * Told what the recurring jobs of one {@link RecurringJobs} do, on this instance; every method has an empty
 * default. Called on a driver or scheduler thread: return quickly and do not block. The job and queue names are
 * configured names, so they are safe as metric tags.
 */
public interface RecurringJobListener {

	/**
	 * This instance enqueued a slot's message (on other instances the slot was taken already).
	 * @param job the job's name
	 * @param queue its queue
	 * @param slot the slot's time
	 * @param lateness the server's time at the enqueue minus the slot's time
	 */
	default void onSlotEnqueued(String job, String queue, Instant slot, Duration lateness) {
	}

	/**
	 * This instance passed over missed slots, by the job's {@link MissedSlots} policy.
	 * @param job the job's name
	 * @param queue its queue
	 * @param count how many slots
	 */
	default void onSlotsSkipped(String job, String queue, long count) {
	}

	/**
	 * The job's call to Redis failed; it is tried again within a second (its slots then follow the grace and the
	 * missed-slot policy).
	 * @param job the job's name
	 * @param queue its queue
	 * @param failure what failed
	 */
	default void onScheduleFailed(String job, String queue, Throwable failure) {
	}

}
