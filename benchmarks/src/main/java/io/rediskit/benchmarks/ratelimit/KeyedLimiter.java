package io.rediskit.benchmarks.ratelimit;

/** One library's limiter over keys {@code 0} to {@code keys - 1}, each starting at full capacity. */
interface KeyedLimiter extends AutoCloseable {

	/**
	 * Asks for one permit and waits for the answer.
	 * @param key the key's index
	 * @return whether it was granted
	 */
	boolean tryAcquire(int key);

	/** Removes what only this run needs and would not expire by itself. */
	@Override
	default void close() {
	}

}
