package io.rediskit.cache;

import java.time.Duration;

/**
 * Observes the caches, for metrics and logging. Methods have empty defaults; they run on the caller's thread
 * (invalidations on the driver's thread), so they must be fast and must not block. An exception thrown by a
 * listener is logged and ignored.
 * <p>
 * {@code cacheName} is the cache's name, never a key, so it is safe as a metric tag.
 */
public interface CacheListener {

	/** A listener that does nothing. */
	CacheListener NONE = new CacheListener() {
	};

	/**
	 * A read found the entry.
	 * @param cacheName the cache
	 * @param tier where
	 */
	default void onHit(String cacheName, CacheTier tier) {
	}

	/**
	 * A read found no entry, in any tier (or Redis could not answer).
	 * @param cacheName the cache
	 */
	default void onMiss(String cacheName) {
	}

	/**
	 * This instance ran the loader of a missing entry.
	 * @param cacheName the cache
	 * @param time how long the loader took
	 * @param success whether it returned (a {@code null} included) rather than threw
	 */
	default void onLoad(String cacheName, Duration time, boolean success) {
	}

	/**
	 * A caller waited for another instance's load of a missing entry.
	 * @param cacheName the cache
	 * @param time how long it waited
	 * @param outcome what ended the wait
	 */
	default void onWait(String cacheName, Duration time, WaitOutcome outcome) {
	}

	/**
	 * An entry in Redis could not be read back (another version of the value's class, bytes written by something
	 * else, a hostile payload); it was treated as a miss.
	 * @param cacheName the cache
	 * @param failure why
	 */
	default void onUndecodable(String cacheName, RuntimeException failure) {
	}

	/**
	 * Redis could not answer a cache operation; reads went to the loader, writes were skipped.
	 * @param cacheName the cache
	 * @param failure what went wrong
	 */
	default void onOutage(String cacheName, RuntimeException failure) {
	}

	/**
	 * The near cache dropped an entry because an instance wrote or evicted it.
	 * @param cacheName the cache
	 */
	default void onNearInvalidation(String cacheName) {
	}

	/**
	 * A key the cache's Bloom filter has never seen was answered as a cached {@code null}, without reading the
	 * entry or calling the loader.
	 * @param cacheName the cache
	 */
	default void onFiltered(String cacheName) {
	}

	/**
	 * A key the cache's Bloom filter has never seen was read (and loaded if absent) as usual, because the filter is
	 * not complete: never seeded, or lost in Redis and perhaps created anew by an add. Its "never seen" would hide an
	 * entry that exists.
	 * @param cacheName the cache
	 */
	default void onUnfiltered(String cacheName) {
	}

	/**
	 * This instance took an entry's load lease to reload it in the background (the reload itself is reported by
	 * {@link #onLoad}); at most one instance does so at a time.
	 * @param cacheName the cache
	 * @param expired whether the entry was past its TTL (stale-while-revalidate) rather than close to it (early
	 * refresh)
	 */
	default void onRefresh(String cacheName, boolean expired) {
	}

	/** What ended a caller's wait for another instance's load. */
	enum WaitOutcome {

		/** The value (or a null) arrived. */
		VALUE,

		/** The loader failed; the caller saw its failure. */
		FAILURE,

		/** The load timeout passed; the caller loaded itself. */
		TIMEOUT;

		/** @return the metric tag */
		public String tag() {
			return name().toLowerCase(java.util.Locale.ROOT);
		}

	}

}
