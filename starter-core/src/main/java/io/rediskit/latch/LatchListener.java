package io.rediskit.latch;

/**
 * Observes count-down latches' events, for metrics and logging. Every method has an empty default; implementations
 * must be thread-safe and fast, since they run on the callers' and the Redis driver's threads. A wait for a latch is
 * a timing, not an event: it is the observation {@code rediskit.latch.await} (docs/observability.md), and its
 * meter comes from that observation.
 */
public interface LatchListener {

	/**
	 * A count-down was applied.
	 * @param latchName the latch's name
	 * @param remaining the count after it; {@code 0} when this count-down opened the latch
	 */
	default void onCountDown(String latchName, long remaining) {
	}

}
