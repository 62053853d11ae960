package io.rediskit.autoconfigure.cache;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.rediskit.cache.CacheSpec;
import io.rediskit.cache.NearCacheInvalidation;
import io.rediskit.cache.NearCacheSpec;
import io.rediskit.cache.OutagePolicy;
import io.rediskit.cache.SingleFlight;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Cache manager settings, under {@code redis-kit.cache}: defaults for every cache, and per cache under
 * {@code caches.<name>} any of them overridden.
 *
 * <pre>{@code
 * redis-kit:
 *   cache:
 *     ttl: 10m
 *     caches:
 *       products:
 *         ttl: 1h
 *         near-cache:
 *           enabled: true
 * }</pre>
 *
 * Checked when the cache manager is built, by the rules of {@link io.rediskit.cache.CacheSpec} and
 * {@link io.rediskit.cache.NearCacheSpec}, each cache with the defaults it inherits: a bad value fails startup
 * naming the property, as does a property that binds to nothing.
 */
@ConfigurationProperties(prefix = "redis-kit.cache", ignoreUnknownFields = false)
public class CacheProperties {

	/**
	 * Whether to auto-configure the cache manager.
	 */
	private boolean enabled = true;

	/**
	 * How long an entry lives in Redis, unless its cache says otherwise; from 1ms to 36500d.
	 */
	private Duration ttl = Duration.ofMinutes(10);

	/**
	 * Fraction of the TTL by which each entry's lifetime is shortened at random (entries then live between
	 * ttl * (1 - jitter) and ttl), against many entries expiring together; from 0 to below 1.
	 */
	private double ttlJitter = 0.1;

	/**
	 * Whether null results are cached, against repeated lookups of what does not exist.
	 */
	private boolean cacheNullValues = true;

	/**
	 * How long a cached null lives, usually far shorter than the TTL.
	 */
	private Duration nullTtl = Duration.ofSeconds(30);

	/**
	 * Lease of one load across instances, and the longest a caller waits for another instance's load before
	 * loading itself.
	 */
	private Duration loadTimeout = Duration.ofSeconds(10);

	/**
	 * Early refresh of entries read through the loader (sync = true) close to their expiry, XFetch's beta: 0 for
	 * none, 1 as XFetch recommends, higher to refresh earlier; at most 100.
	 */
	private double earlyRefresh;

	/**
	 * How long an entry past its TTL is still served to reads through the loader (sync = true) while one
	 * instance reloads it in the background; 0 for never.
	 */
	private Duration staleWhileRevalidate = Duration.ZERO;

	/**
	 * What reads do while Redis cannot answer: 'bypass' (a miss: the loader runs) or 'serve-stale' (the near
	 * cache's last copy, then the loader; needs the near cache).
	 */
	private OutagePolicy outagePolicy = OutagePolicy.BYPASS;

	/**
	 * Name of the Bloom filter (redis-kit.bloom) of the keys that exist: a key it has never seen is answered as a
	 * cached null without reading the entry or calling the loader; unset for none.
	 */
	private @Nullable String bloomFilter;

	/**
	 * Which misses load once across instances: 'loader' (reads through the loader, @Cacheable(sync = true)) or
	 * 'every-miss' (plain reads too: the first caller runs the method, its put hands the value to the others).
	 */
	private SingleFlight singleFlight = SingleFlight.LOADER;

	/**
	 * Packages whose classes cached values may be (sub-packages included), beside the JDK's value types; empty
	 * for the application's own packages (those of its @SpringBootApplication class).
	 */
	private List<String> trustedPackages = new ArrayList<>();

	/**
	 * How often each instance probes its invalidation subscription; near caches are bypassed after three missed
	 * probes.
	 */
	private Duration heartbeat = Duration.ofSeconds(1);

	/**
	 * Near cache of every cache, unless its cache says otherwise.
	 */
	private final Near nearCache = new Near();

	/**
	 * Caches by name: letters, digits, '_' and '-', at most 64 characters, no '.'.
	 */
	private Map<String, Cache> caches = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getTtl() {
		return this.ttl;
	}

	public void setTtl(Duration ttl) {
		this.ttl = ttl;
	}

	public double getTtlJitter() {
		return this.ttlJitter;
	}

	public void setTtlJitter(double ttlJitter) {
		this.ttlJitter = ttlJitter;
	}

	public boolean isCacheNullValues() {
		return this.cacheNullValues;
	}

	public void setCacheNullValues(boolean cacheNullValues) {
		this.cacheNullValues = cacheNullValues;
	}

	public Duration getNullTtl() {
		return this.nullTtl;
	}

	public void setNullTtl(Duration nullTtl) {
		this.nullTtl = nullTtl;
	}

	public Duration getLoadTimeout() {
		return this.loadTimeout;
	}

	public void setLoadTimeout(Duration loadTimeout) {
		this.loadTimeout = loadTimeout;
	}

	public double getEarlyRefresh() {
		return this.earlyRefresh;
	}

	public void setEarlyRefresh(double earlyRefresh) {
		this.earlyRefresh = earlyRefresh;
	}

	public Duration getStaleWhileRevalidate() {
		return this.staleWhileRevalidate;
	}

	public void setStaleWhileRevalidate(Duration staleWhileRevalidate) {
		this.staleWhileRevalidate = staleWhileRevalidate;
	}

	public OutagePolicy getOutagePolicy() {
		return this.outagePolicy;
	}

	public void setOutagePolicy(OutagePolicy outagePolicy) {
		this.outagePolicy = outagePolicy;
	}

	public @Nullable String getBloomFilter() {
		return this.bloomFilter;
	}

	public void setBloomFilter(@Nullable String bloomFilter) {
		this.bloomFilter = bloomFilter;
	}

	public SingleFlight getSingleFlight() {
		return this.singleFlight;
	}

	public void setSingleFlight(SingleFlight singleFlight) {
		this.singleFlight = singleFlight;
	}

	public List<String> getTrustedPackages() {
		return this.trustedPackages;
	}

	public void setTrustedPackages(List<String> trustedPackages) {
		this.trustedPackages = trustedPackages;
	}

	public Duration getHeartbeat() {
		return this.heartbeat;
	}

	public void setHeartbeat(Duration heartbeat) {
		this.heartbeat = heartbeat;
	}

	public Near getNearCache() {
		return this.nearCache;
	}

	public Map<String, Cache> getCaches() {
		return this.caches;
	}

	public void setCaches(Map<String, Cache> caches) {
		this.caches = caches;
	}

	/**
	 * A near cache: a bounded copy of a cache's entries in each instance's memory.
	 */
	public static class Near {

		/**
		 * Whether reads are answered from memory while invalidations arrive.
		 */
		private boolean enabled;

		/**
		 * Most entries kept in memory per instance and cache, at least 1.
		 */
		private int maxEntries = 10_000;

		/**
		 * Longest time an entry is kept in memory, a bound on staleness should an invalidation be missed.
		 */
		private Duration ttl = Duration.ofMinutes(1);

		/**
		 * How copies learn of changes: 'auto' (server-assisted tracking where the server offers it, else pub/sub),
		 * 'tracking' (tracking only; bypassed where the server does not offer it) or 'pubsub' (the caches' own
		 * messages only).
		 */
		private NearCacheInvalidation invalidation = NearCacheInvalidation.AUTO;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getMaxEntries() {
			return this.maxEntries;
		}

		public void setMaxEntries(int maxEntries) {
			this.maxEntries = maxEntries;
		}

		public Duration getTtl() {
			return this.ttl;
		}

		public void setTtl(Duration ttl) {
			this.ttl = ttl;
		}

		public NearCacheInvalidation getInvalidation() {
			return this.invalidation;
		}

		public void setInvalidation(NearCacheInvalidation invalidation) {
			this.invalidation = invalidation;
		}

	}

	/**
	 * One cache's settings; each one unset takes the value of {@code redis-kit.cache.*}.
	 */
	public static class Cache {

		/**
		 * How long an entry lives in Redis.
		 */
		private @Nullable Duration ttl;

		/**
		 * Fraction of the TTL by which each entry's lifetime is shortened at random.
		 */
		private @Nullable Double ttlJitter;

		/**
		 * Whether null results are cached.
		 */
		private @Nullable Boolean cacheNullValues;

		/**
		 * How long a cached null lives.
		 */
		private @Nullable Duration nullTtl;

		/**
		 * Lease of one load across instances, and the longest wait for it.
		 */
		private @Nullable Duration loadTimeout;

		/**
		 * Early refresh of entries close to their expiry, XFetch's beta; 0 for none.
		 */
		private @Nullable Double earlyRefresh;

		/**
		 * How long an entry past its TTL is still served while one instance reloads it; 0 for never.
		 */
		private @Nullable Duration staleWhileRevalidate;

		/**
		 * What reads do while Redis cannot answer: 'bypass' or 'serve-stale'.
		 */
		private @Nullable OutagePolicy outagePolicy;

		/**
		 * Name of the Bloom filter of the keys that exist; unset for the default.
		 */
		private @Nullable String bloomFilter;

		/**
		 * Which misses load once across instances: 'loader' or 'every-miss'.
		 */
		private @Nullable SingleFlight singleFlight;

		/**
		 * Near cache of this cache.
		 */
		private final NearOverride nearCache = new NearOverride();

		public @Nullable Duration getTtl() {
			return this.ttl;
		}

		public void setTtl(@Nullable Duration ttl) {
			this.ttl = ttl;
		}

		public @Nullable Double getTtlJitter() {
			return this.ttlJitter;
		}

		public void setTtlJitter(@Nullable Double ttlJitter) {
			this.ttlJitter = ttlJitter;
		}

		public @Nullable Boolean getCacheNullValues() {
			return this.cacheNullValues;
		}

		public void setCacheNullValues(@Nullable Boolean cacheNullValues) {
			this.cacheNullValues = cacheNullValues;
		}

		public @Nullable Duration getNullTtl() {
			return this.nullTtl;
		}

		public void setNullTtl(@Nullable Duration nullTtl) {
			this.nullTtl = nullTtl;
		}

		public @Nullable Duration getLoadTimeout() {
			return this.loadTimeout;
		}

		public void setLoadTimeout(@Nullable Duration loadTimeout) {
			this.loadTimeout = loadTimeout;
		}

		public @Nullable Double getEarlyRefresh() {
			return this.earlyRefresh;
		}

		public void setEarlyRefresh(@Nullable Double earlyRefresh) {
			this.earlyRefresh = earlyRefresh;
		}

		public @Nullable Duration getStaleWhileRevalidate() {
			return this.staleWhileRevalidate;
		}

		public void setStaleWhileRevalidate(@Nullable Duration staleWhileRevalidate) {
			this.staleWhileRevalidate = staleWhileRevalidate;
		}

		public @Nullable OutagePolicy getOutagePolicy() {
			return this.outagePolicy;
		}

		public void setOutagePolicy(@Nullable OutagePolicy outagePolicy) {
			this.outagePolicy = outagePolicy;
		}

		public @Nullable String getBloomFilter() {
			return this.bloomFilter;
		}

		public void setBloomFilter(@Nullable String bloomFilter) {
			this.bloomFilter = bloomFilter;
		}

		public @Nullable SingleFlight getSingleFlight() {
			return this.singleFlight;
		}

		public void setSingleFlight(@Nullable SingleFlight singleFlight) {
			this.singleFlight = singleFlight;
		}

		public NearOverride getNearCache() {
			return this.nearCache;
		}

	}

	/**
	 * One cache's near cache; each setting unset takes the value of {@code redis-kit.cache.near-cache.*}.
	 */
	public static class NearOverride {

		/**
		 * Whether reads are answered from memory while invalidations arrive.
		 */
		private @Nullable Boolean enabled;

		/**
		 * Most entries kept in memory per instance.
		 */
		private @Nullable Integer maxEntries;

		/**
		 * Longest time an entry is kept in memory.
		 */
		private @Nullable Duration ttl;

		/**
		 * How copies learn of changes: 'auto', 'tracking' or 'pubsub'.
		 */
		private @Nullable NearCacheInvalidation invalidation;

		public @Nullable Boolean getEnabled() {
			return this.enabled;
		}

		public void setEnabled(@Nullable Boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable Integer getMaxEntries() {
			return this.maxEntries;
		}

		public void setMaxEntries(@Nullable Integer maxEntries) {
			this.maxEntries = maxEntries;
		}

		public @Nullable Duration getTtl() {
			return this.ttl;
		}

		public void setTtl(@Nullable Duration ttl) {
			this.ttl = ttl;
		}

		public @Nullable NearCacheInvalidation getInvalidation() {
			return this.invalidation;
		}

		public void setInvalidation(@Nullable NearCacheInvalidation invalidation) {
			this.invalidation = invalidation;
		}

	}

}
