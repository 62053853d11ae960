package io.rediskit.bloom;

/**
 * Hears how many items Bloom filter calls carried and hit, for metrics. Methods have empty defaults; they run on the caller's
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
	 * A call (one item or a batch) completed; its latency and outcome are observed as
	 * {@link io.rediskit.support.RedisKitObservation#BLOOM_OPERATION}.
	 * @param filterName the filter's name
	 * @param operation what was done
	 * @param items how many items the call carried
	 * @param hits how many were new ({@link BloomOperation#ADD}) or might be in the filter
	 * ({@link BloomOperation#CONTAINS})
	 */
	default void onItems(String filterName, BloomOperation operation, int items, int hits) {
	}

}
