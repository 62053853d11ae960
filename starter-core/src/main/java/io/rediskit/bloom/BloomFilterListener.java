package io.rediskit.bloom;

import java.time.Duration;

/**
 * Observes Bloom filter calls, for metrics and logging. Methods have empty defaults; they run on the caller's
 * thread (for async calls, the driver's thread), so they must be fast and must not block. An exception thrown
 * by a listener is logged and ignored.
 * <p>
 * {@code filterName} is the configured filter name, never an item, so it is safe as a metric tag.
 */
public interface BloomFilterListener {

	/** A listener that does nothing. */
	BloomFilterListener NONE = new BloomFilterListener() {
	};

	/**
	 * A call (one item or a batch) completed.
	 * @param filterName the filter's name
	 * @param operation what was done
	 * @param items how many items the call carried
	 * @param hits how many were new ({@link BloomOperation#ADD}) or might be in the filter
	 * ({@link BloomOperation#CONTAINS})
	 * @param latency time from the call to the reply
	 */
	default void onOperation(String filterName, BloomOperation operation, int items, int hits, Duration latency) {
	}

	/**
	 * Redis could not answer; the call fails with the exception.
	 * @param filterName the filter's name
	 * @param operation what was attempted
	 * @param failure what went wrong
	 */
	default void onFailure(String filterName, BloomOperation operation, RuntimeException failure) {
	}

}
