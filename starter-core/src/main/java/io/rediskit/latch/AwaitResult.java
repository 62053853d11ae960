package io.rediskit.latch;

/** How a wait for a latch ended: the outcome of its observation, in lower case. */
enum AwaitResult {

	/** The count was zero. */
	OPENED,

	/**
	 * The timeout ran out first, or the caller ended an asynchronous wait's stage with a
	 * {@link java.util.concurrent.TimeoutException} (its own deadline, as {@code orTimeout} sets it).
	 */
	TIMEOUT,

	/**
	 * The waiting thread was interrupted, the caller ended an asynchronous wait's stage otherwise (a cancel, a value,
	 * another failure), or the registry stopped.
	 */
	INTERRUPTED,

	/** Redis failed to answer. */
	ERROR

}
