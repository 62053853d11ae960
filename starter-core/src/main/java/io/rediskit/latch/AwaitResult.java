package io.rediskit.latch;

/** How a wait for a latch ended: the outcome of its observation, in lower case. */
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
