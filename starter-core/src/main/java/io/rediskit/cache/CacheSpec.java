package io.rediskit.cache;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

import io.rediskit.support.Expiry;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.Names;
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
 * <p>
 * Against a hot entry expiring under load (breakdown), besides the single-flight of every load:
 * <ul>
 * <li><b>Early refresh</b> ({@code earlyRefresh} above 0): a read through the loader ({@code sync = true}) that
 * finds the entry close to its expiry reloads it in the background, with a probability that rises as the expiry
 * nears (probabilistic early expiration, "XFetch"): {@code exp(-remaining / (earlyRefresh * loadTime))}, where
 * {@code loadTime} is this instance's average load time of the cache. One instance in the cluster reloads (it
 * holds the entry's load lease); every caller keeps getting the current value meanwhile.</li>
 * <li><b>Stale-while-revalidate</b> ({@code staleWhileRevalidate} above zero): an entry is kept that much longer
 * than its TTL; a read through the loader in that window gets the old value at once while one instance reloads
 * it in the background.</li>
 * </ul>
 * Both need the loader, so they apply to {@code get(key, loader)} ({@code @Cacheable(sync = true)}) and
 * {@code retrieve(key, loader)}; a plain read ({@code sync = false}) treats an entry past its TTL as a miss.
 *
 * @param nearCache the near cache, or {@code null} for none
 * @param earlyRefresh the XFetch factor (its beta): 0 for no early refresh, 1 as XFetch recommends, higher to
 * refresh earlier; at most 100
 * @param staleWhileRevalidate how long an entry past its TTL is still served while it is reloaded, zero for
 * never; the entry's life in Redis is its TTL plus this
 * @param outagePolicy what reads do while Redis cannot answer
 * @param bloomFilter the name of the Bloom filter of the keys that exist, or {@code null} for none: a key it has
 * never seen is answered as a cached {@code null} without reading the entry or calling the loader
 * @param singleFlight which misses load once across instances
 */
public record CacheSpec(Duration ttl, double ttlJitter, boolean cacheNullValues, Duration nullTtl,
		Duration loadTimeout, @Nullable NearCacheSpec nearCache, double earlyRefresh, Duration staleWhileRevalidate,
		OutagePolicy outagePolicy, @Nullable String bloomFilter, SingleFlight singleFlight) {

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
		Objects.requireNonNull(staleWhileRevalidate, "staleWhileRevalidate must not be null");
		Objects.requireNonNull(outagePolicy, "outagePolicy must not be null");
		Objects.requireNonNull(singleFlight, "singleFlight must not be null");
		if (!(earlyRefresh >= 0 && earlyRefresh <= 100)) {
			throw new InvalidSpecException("earlyRefresh", "must be from 0 (off) to 100, was " + earlyRefresh);
		}
		if (staleWhileRevalidate.isNegative()) {
			throw new InvalidSpecException("staleWhileRevalidate", "must not be negative, was " + staleWhileRevalidate);
		}
		Expiry.requireAtMostMax("staleWhileRevalidate", staleWhileRevalidate);
		if (staleWhileRevalidate.plus(ttl).compareTo(Expiry.MAX) > 0) {
			throw new InvalidSpecException("staleWhileRevalidate", "plus the ttl must be at most " + Expiry.MAX
					+ ", was " + staleWhileRevalidate + " + " + ttl);
		}
		if (outagePolicy == OutagePolicy.SERVE_STALE && nearCache == null) {
			throw new InvalidSpecException("outagePolicy", "SERVE_STALE serves the near cache's copies and needs a"
					+ " near cache; enable it or use BYPASS");
		}
		if (bloomFilter != null && !Names.isValid(bloomFilter)) {
			throw new InvalidSpecException("bloomFilter", "must be the name of a Bloom filter (" + Names.RULE
					+ "), was '" + bloomFilter + "'");
		}
	}

	/**
	 * A spec without early refresh, stale-while-revalidate or Bloom filter, bypassing Redis while it is down, with
	 * single-flight for reads through the loader.
	 * @param ttl how long an entry lives in Redis
	 * @param ttlJitter the fraction of the TTL by which an entry's lifetime is shortened at random
	 * @param cacheNullValues whether a {@code null} result is cached
	 * @param nullTtl how long a cached {@code null} lives
	 * @param loadTimeout the lease of one load and the longest wait for it
	 * @param nearCache the near cache, or {@code null} for none
	 */
	public CacheSpec(Duration ttl, double ttlJitter, boolean cacheNullValues, Duration nullTtl, Duration loadTimeout,
			@Nullable NearCacheSpec nearCache) {
		this(ttl, ttlJitter, cacheNullValues, nullTtl, loadTimeout, nearCache, 0, Duration.ZERO, OutagePolicy.BYPASS,
				null, SingleFlight.LOADER);
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
		return new CacheSpec(ttl, this.ttlJitter, this.cacheNullValues, this.nullTtl, this.loadTimeout, this.nearCache,
				this.earlyRefresh, this.staleWhileRevalidate, this.outagePolicy, this.bloomFilter,
				this.singleFlight);
	}

	/**
	 * @param ttlJitter the jitter
	 * @return this spec with another jitter
	 */
	public CacheSpec withTtlJitter(double ttlJitter) {
		return new CacheSpec(this.ttl, ttlJitter, this.cacheNullValues, this.nullTtl, this.loadTimeout, this.nearCache,
				this.earlyRefresh, this.staleWhileRevalidate, this.outagePolicy, this.bloomFilter,
				this.singleFlight);
	}

	/**
	 * @param cacheNullValues whether nulls are cached
	 * @param nullTtl their TTL
	 * @return this spec with another null handling
	 */
	public CacheSpec withNullValues(boolean cacheNullValues, Duration nullTtl) {
		return new CacheSpec(this.ttl, this.ttlJitter, cacheNullValues, nullTtl, this.loadTimeout, this.nearCache,
				this.earlyRefresh, this.staleWhileRevalidate, this.outagePolicy, this.bloomFilter,
				this.singleFlight);
	}

	/**
	 * @param loadTimeout the load lease and wait
	 * @return this spec with another load timeout
	 */
	public CacheSpec withLoadTimeout(Duration loadTimeout) {
		return new CacheSpec(this.ttl, this.ttlJitter, this.cacheNullValues, this.nullTtl, loadTimeout, this.nearCache,
				this.earlyRefresh, this.staleWhileRevalidate, this.outagePolicy, this.bloomFilter,
				this.singleFlight);
	}

	/**
	 * @param nearCache the near cache, or {@code null} for none
	 * @return this spec with another near cache
	 */
	public CacheSpec withNearCache(@Nullable NearCacheSpec nearCache) {
		return new CacheSpec(this.ttl, this.ttlJitter, this.cacheNullValues, this.nullTtl, this.loadTimeout, nearCache,
				this.earlyRefresh, this.staleWhileRevalidate, this.outagePolicy, this.bloomFilter,
				this.singleFlight);
	}

	/**
	 * @param earlyRefresh the XFetch factor, 0 for none
	 * @param staleWhileRevalidate how long an entry past its TTL is still served while it is reloaded
	 * @return this spec with another refresh
	 */
	public CacheSpec withRefresh(double earlyRefresh, Duration staleWhileRevalidate) {
		return new CacheSpec(this.ttl, this.ttlJitter, this.cacheNullValues, this.nullTtl, this.loadTimeout,
				this.nearCache, earlyRefresh, staleWhileRevalidate, this.outagePolicy, this.bloomFilter,
				this.singleFlight);
	}

	/**
	 * @param outagePolicy what reads do while Redis cannot answer
	 * @return this spec with another outage policy
	 */
	public CacheSpec withOutagePolicy(OutagePolicy outagePolicy) {
		return new CacheSpec(this.ttl, this.ttlJitter, this.cacheNullValues, this.nullTtl, this.loadTimeout,
				this.nearCache, this.earlyRefresh, this.staleWhileRevalidate, outagePolicy, this.bloomFilter,
				this.singleFlight);
	}

	/**
	 * @param bloomFilter the Bloom filter's name, or {@code null} for none
	 * @return this spec with another Bloom filter
	 */
	public CacheSpec withBloomFilter(@Nullable String bloomFilter) {
		return new CacheSpec(this.ttl, this.ttlJitter, this.cacheNullValues, this.nullTtl, this.loadTimeout,
				this.nearCache, this.earlyRefresh, this.staleWhileRevalidate, this.outagePolicy, bloomFilter,
				this.singleFlight);
	}

	/**
	 * @param singleFlight which misses load once across instances
	 * @return this spec with another single-flight
	 */
	public CacheSpec withSingleFlight(SingleFlight singleFlight) {
		return new CacheSpec(this.ttl, this.ttlJitter, this.cacheNullValues, this.nullTtl, this.loadTimeout,
				this.nearCache, this.earlyRefresh, this.staleWhileRevalidate, this.outagePolicy, this.bloomFilter,
				singleFlight);
	}

	/**
	 * The TTL of one write in Redis, jittered, plus the stale-while-revalidate window.
	 * @param nullValue whether the write is a cached null
	 * @return the TTL in ms, at least 1
	 */
	long jitteredTtlMillis(boolean nullValue) {
		long base = (nullValue ? this.nullTtl : this.ttl).toMillis();
		long cut = (long) (base * this.ttlJitter * ThreadLocalRandom.current().nextDouble());
		return Math.max(1, base - cut) + this.staleWhileRevalidate.toMillis();
	}

	/**
	 * How long an entry has before its TTL ends, its stale-while-revalidate window left out.
	 * @param pttl the entry's PTTL in Redis, negative without expiry
	 * @return the ms, {@code Long.MAX_VALUE} if unknown, 0 or less once past its TTL
	 */
	long freshMillis(long pttl) {
		if (pttl < 0) {
			return Long.MAX_VALUE;
		}
		return pttl - this.staleWhileRevalidate.toMillis();
	}

	private static void requireAtLeastOneMilli(String component, Duration value) {
		if (value.toMillis() < 1) {
			throw new InvalidSpecException(component, "must be at least 1ms, was " + value);
		}
	}

}
