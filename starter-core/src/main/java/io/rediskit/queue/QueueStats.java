package io.rediskit.queue;

import java.time.Duration;

/**
 * A queue's messages by state, read in one script. Every message is in exactly one state.
 *
 * @param delayed not due yet
 * @param ready due and waiting for a consumer
 * @param inFlight delivered, neither settled nor past their visibility deadline yet (or past it and not taken
 * back yet)
 * @param dead in the dead-letter queue
 * @param oldestDueAge how long the oldest ready message has been due; zero when none is
 */
public record QueueStats(long delayed, long ready, long inFlight, long dead, Duration oldestDueAge) {

	/** @return messages in all states */
	public long total() {
		return this.delayed + this.ready + this.inFlight + this.dead;
	}

}
