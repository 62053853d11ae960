package io.rediskit.queue;

import java.time.Duration;

/**
 * A queue's messages by state, read in one script. Every message is in exactly one state; a flow's parent that
 * waits for its children is in none of them until they let it run, and is counted apart ({@link #waitingParents}).
 *
 * @param delayed not due yet
 * @param ready due and waiting for a consumer
 * @param inFlight delivered, neither settled nor past their visibility deadline yet (or past it and not taken
 * back yet)
 * @param dead in the dead-letter queue
 * @param oldestDueAge how long the oldest ready message has been due; zero when none is
 * @param waitingParents parents of {@link QueueFlow flows} waiting for their children (stored, in no state)
 * @param batchesInProgress {@link QueueBatch batches} with members not finished yet
 */
public record QueueStats(long delayed, long ready, long inFlight, long dead, Duration oldestDueAge,
		long waitingParents, long batchesInProgress) {

	/**
	 * Stats of a queue without flows or batches under way.
	 * @param delayed see the component
	 * @param ready see the component
	 * @param inFlight see the component
	 * @param dead see the component
	 * @param oldestDueAge see the component
	 */
	public QueueStats(long delayed, long ready, long inFlight, long dead, Duration oldestDueAge) {
		this(delayed, ready, inFlight, dead, oldestDueAge, 0, 0);
	}

	/** @return messages in all states; the waiting parents are not among them */
	public long total() {
		return this.delayed + this.ready + this.inFlight + this.dead;
	}

}
