package io.rediskit.geo;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Observes geo index operations, for metrics and logging. Methods have empty defaults; they run on the caller's
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
	 * An operation finished.
	 * @param indexName the index's name
	 * @param operation {@code put}, {@code put-all}, {@code remove}, {@code position}, {@code distance},
	 * {@code nearby} or {@code sweep}
	 * @param latency time from the call to its answer
	 * @param failure why it failed, or {@code null} when it succeeded
	 */
	default void onOperation(String indexName, String operation, Duration latency, @Nullable Throwable failure) {
	}

	/**
	 * Expired members were removed, by a put's sweep or by {@link GeoIndex#sweepExpired()}.
	 * @param indexName the index's name
	 * @param count how many
	 */
	default void onExpiredRemoved(String indexName, long count) {
	}

}
