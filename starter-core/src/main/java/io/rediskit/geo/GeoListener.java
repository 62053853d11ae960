package io.rediskit.geo;

/**
 * Hears of the expired members geo index sweeps remove, for metrics; the operations themselves are observed as
 * {@link io.rediskit.support.RedisKitObservation#GEO_OPERATION}. Methods have empty defaults; they run on the caller's
 * thread (for async calls, the driver's thread), so they must be fast and must not block. An exception thrown
 * by a listener is logged and ignored.
 * <p>
 * {@code indexName} is the index's configured name (never a member or a region), so it is safe as a metric tag.
 */
public interface GeoListener {

	/** A listener that does nothing. */
	GeoListener NONE = new GeoListener() {
	};

	/**
	 * Expired members were removed, by a put's sweep or by {@link GeoIndex#sweepExpired()}.
	 * @param indexName the index's name
	 * @param count how many
	 */
	default void onExpiredRemoved(String indexName, long count) {
	}

}
