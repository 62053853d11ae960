package io.rediskit.cache;

import java.time.Duration;
import java.util.Objects;

import io.rediskit.support.Expiry;
import io.rediskit.support.InvalidSpecException;

/**
 * A near cache: a bounded copy of a cache's entries in each instance's memory, in front of Redis, dropped when
 * any instance writes or evicts the entry (see {@link RedisKitCacheManager} for the guarantees).
 *
 * @param maxEntries the most entries kept in memory per instance, at least 1; beyond it the oldest are dropped
 * @param ttl how long an entry is kept in memory at most, from 1 ms; a bound on staleness should an
 * invalidation be lost in a way the heartbeat cannot see
 * @param invalidation how the near cache learns of changes: server-assisted tracking where the server offers it
 * ({@link NearCacheInvalidation#AUTO}, the default), tracking only, or the caches' pub/sub only
 */
public record NearCacheSpec(int maxEntries, Duration ttl, NearCacheInvalidation invalidation) {

	/** Entries per instance unless configured. */
	public static final int DEFAULT_MAX_ENTRIES = 10_000;

	/** In-memory lifetime unless configured. */
	public static final Duration DEFAULT_TTL = Duration.ofMinutes(1);

	/**
	 * Validates the near cache.
	 * @throws InvalidSpecException naming the component at fault
	 */
	public NearCacheSpec {
		Objects.requireNonNull(ttl, "ttl must not be null");
		Objects.requireNonNull(invalidation, "invalidation must not be null");
		if (maxEntries < 1) {
			throw new InvalidSpecException("maxEntries", "must be at least 1, was " + maxEntries);
		}
		if (ttl.toMillis() < 1) {
			throw new InvalidSpecException("ttl", "must be at least 1ms, was " + ttl);
		}
		Expiry.requireAtMostMax("ttl", ttl);
	}

	/**
	 * A near cache invalidated by tracking where the server offers it, else by pub/sub.
	 * @param maxEntries the most entries kept in memory per instance
	 * @param ttl how long an entry is kept in memory at most
	 */
	public NearCacheSpec(int maxEntries, Duration ttl) {
		this(maxEntries, ttl, NearCacheInvalidation.AUTO);
	}

	/**
	 * @param invalidation how the near cache learns of changes
	 * @return this near cache with another invalidation mode
	 */
	public NearCacheSpec withInvalidation(NearCacheInvalidation invalidation) {
		return new NearCacheSpec(this.maxEntries, this.ttl, invalidation);
	}

	/** @return {@value #DEFAULT_MAX_ENTRIES} entries for at most a minute, invalidated by tracking where offered */
	public static NearCacheSpec defaults() {
		return new NearCacheSpec(DEFAULT_MAX_ENTRIES, DEFAULT_TTL);
	}

}
