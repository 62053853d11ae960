package io.rediskit.queue;

import java.time.Instant;
import java.util.Objects;

/**
 * The payload of a recurring job's message: which job, and the slot it is for. A listener of the job's queue
 * takes it (or {@code QueueMessage<RecurringSlot>}); the message's id is {@code <job>@<slot as ISO-8601>}.
 * @param job the job's name
 * @param slot the slot's time, as the schedule computed it (not when the message was enqueued or delivered)
 */
public record RecurringSlot(String job, Instant slot) {

	/**
	 * @param job the job's name
	 * @param slot the slot's time
	 */
	public RecurringSlot {
		Objects.requireNonNull(job, "job must not be null");
		Objects.requireNonNull(slot, "slot must not be null");
	}

	/**
	 * The message id of a job's slot: the same on every instance, so that the queue's deduplication and the
	 * job's record of its last slot let one message through per slot.
	 * @param job the job's name
	 * @param slot the slot's time
	 * @return {@code <job>@<slot as ISO-8601>}
	 */
	public static String messageId(String job, Instant slot) {
		return job + "@" + slot;
	}

}
