package io.rediskit.latch;

import java.time.Duration;

/**
 * Observes count-down latches, for metrics and logging. Every method has an empty default; implementations must
 * be thread-safe and fast, since they run on the callers' and the Redis driver's threads.
 */
public interface LatchListener {

	/**
	 * A count-down was applied.
	 * @param latchName the latch's name
	 * @param remaining the count after it; {@code 0} when this count-down opened the latch
	 */
	default void onCountDown(String latchName, long remaining) {
	}

	/**
	 * A wait ended.
	 * @param latchName the latch's name
	 * @param result how it ended
	 * @param waited how long it waited
	 */
	default void onAwait(String latchName, AwaitResult result, Duration waited) {
	}

	/** How a wait for a latch ended. */
	enum AwaitResult {

		/** The count was zero. */
		OPENED,

		/** The timeout ran out first. */
		TIMEOUT,

		/** The waiting thread was interrupted, the caller cancelled, or the registry stopped. */
		INTERRUPTED,

		/** Redis failed to answer. */
		ERROR

	}

}
