package io.rediskit.cache;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

import io.rediskit.support.Expiry;
import io.rediskit.support.InvalidSpecException;
import org.jspecify.annotations.Nullable;

/**
 * What one cache does: how long entries live, how their expiries are spread, whether nulls are cached, how long
 * a load may take, and whether it has a near cache.
 * <p>
 * Jitter spreads expiries against an avalanche (many entries written together expiring together): each entry
 * lives a uniformly random time between {@code ttl * (1 - ttlJitter)} and {@code ttl}, so the configured TTL
 * stays the upper bound of an entry's age.
 *
 * @param ttl how long an entry lives in Redis, from 1 ms to {@link Expiry#MAX}
 * @param ttlJitter the fraction of the TTL by which an entry's lifetime is shortened at random, from 0
 * (every entry lives {@code ttl}) to below 1
 * @param cacheNullValues whether a {@code null} result is cached (against penetration: lookups of what does not
 * exist)
 * @param nullTtl how long a cached {@code null} lives, usually much shorter than {@code ttl}, jittered alike
 * @param loadTimeout the lease of one load across instances and the longest a caller waits for another
 * instance's load before loading itself, from 1 ms
 * @param nearCache the near cache, or {@code null} for none
 */
public record CacheSpec(Duration ttl, double ttlJitter, boolean cacheNullValues, Duration nullTtl,
		Duration loadTimeout, @Nullable NearCacheSpec nearCache) {

	/** TTL unless configured. */
	public static final Duration DEFAULT_TTL = Duration.ofMinutes(10);

	/** Jitter unless configured. */
	public static final double DEFAULT_TTL_JITTER = 0.1;

	/** TTL of a cached null unless configured. */
	public static final Duration DEFAULT_NULL_TTL = Duration.ofSeconds(30);

	/** Load lease and wait unless configured. */
	public static final Duration DEFAULT_LOAD_TIMEOUT = Duration.ofSeconds(10);

	/**
	 * Validates the spec.
	 * @throws InvalidSpecException naming the component at fault
	 */
	public CacheSpec {
		Objects.requireNonNull(ttl, "ttl must not be null");
		Objects.requireNonNull(nullTtl, "nullTtl must not be null");
		Objects.requireNonNull(loadTimeout, "loadTimeout must not be null");
		requireAtLeastOneMilli("ttl", ttl);
		Expiry.requireAtMostMax("ttl", ttl);
		if (!(ttlJitter >= 0 && ttlJitter < 1)) {
			throw new InvalidSpecException("ttlJitter", "must be from 0 to below 1, was " + ttlJitter);
		}
		requireAtLeastOneMilli("nullTtl", nullTtl);
		Expiry.requireAtMostMax("nullTtl", nullTtl);
		requireAtLeastOneMilli("loadTimeout", loadTimeout);
		Expiry.requireAtMostMax("loadTimeout", loadTimeout);
	}

	/** @return a 10 minute TTL, 10 % jitter, nulls cached for 30 s, a 10 s load timeout, no near cache */
	public static CacheSpec defaults() {
		return new CacheSpec(DEFAULT_TTL, DEFAULT_TTL_JITTER, true, DEFAULT_NULL_TTL, DEFAULT_LOAD_TIMEOUT, null);
	}

	/**
	 * @param ttl the TTL
	 * @return this spec with another TTL
	 */
	public CacheSpec withTtl(Duration ttl) {
		return new CacheSpec(ttl, this.ttlJitter, this.cacheNullValues, this.nullTtl, this.loadTimeout, this.nearCache);
	}

	/**
	 * @param ttlJitter the jitter
	 * @return this spec with another jitter
	 */
	public CacheSpec withTtlJitter(double ttlJitter) {
		return new CacheSpec(this.ttl, ttlJitter, this.cacheNullValues, this.nullTtl, this.loadTimeout, this.nearCache);
	}

	/**
	 * @param cacheNullValues whether nulls are cached
	 * @param nullTtl their TTL
	 * @return this spec with another null handling
	 */
	public CacheSpec withNullValues(boolean cacheNullValues, Duration nullTtl) {
		return new CacheSpec(this.ttl, this.ttlJitter, cacheNullValues, nullTtl, this.loadTimeout, this.nearCache);
	}

	/**
	 * @param loadTimeout the load lease and wait
	 * @return this spec with another load timeout
	 */
	public CacheSpec withLoadTimeout(Duration loadTimeout) {
		return new CacheSpec(this.ttl, this.ttlJitter, this.cacheNullValues, this.nullTtl, loadTimeout, this.nearCache);
	}

	/**
	 * @param nearCache the near cache, or {@code null} for none
	 * @return this spec with another near cache
	 */
	public CacheSpec withNearCache(@Nullable NearCacheSpec nearCache) {
		return new CacheSpec(this.ttl, this.ttlJitter, this.cacheNullValues, this.nullTtl, this.loadTimeout, nearCache);
	}

	/**
	 * The TTL of one write, jittered.
	 * @param nullValue whether the write is a cached null
	 * @return the TTL in ms, at least 1
	 */
	long jitteredTtlMillis(boolean nullValue) {
		long base = (nullValue ? this.nullTtl : this.ttl).toMillis();
		long cut = (long) (base * this.ttlJitter * ThreadLocalRandom.current().nextDouble());
		return Math.max(1, base - cut);
	}

	private static void requireAtLeastOneMilli(String component, Duration value) {
		if (value.toMillis() < 1) {
			throw new InvalidSpecException(component, "must be at least 1ms, was " + value);
		}
	}

}
