package io.rediskit.autoconfigure.cache;

import java.util.Map;
import java.util.Objects;

import io.rediskit.autoconfigure.cache.CacheProperties.Cache;
import io.rediskit.autoconfigure.cache.CacheProperties.Near;
import io.rediskit.autoconfigure.cache.CacheProperties.NearOverride;
import io.rediskit.autoconfigure.support.PropertyChecks;
import io.rediskit.cache.CacheSpec;
import io.rediskit.cache.NearCacheSpec;
import io.rediskit.support.InvalidSpecException;
import org.jspecify.annotations.Nullable;

/**
 * The caches' specs from {@code redis-kit.cache}: the defaults, for caches not configured, and each configured cache
 * as its own settings over the defaults. The rules are the specs' constructors'; a fault fails startup naming the
 * property the value came from (the cache's own, or the default it inherits) and the cache.
 */
final class CacheSpecs {

	private static final String PREFIX = "redis-kit.cache.";

	private final CacheSpec defaults;

	private final Map<String, CacheSpec> caches;

	private CacheSpecs(CacheSpec defaults, Map<String, CacheSpec> caches) {
		this.defaults = defaults;
		this.caches = caches;
	}

	/**
	 * @param properties the bound settings
	 * @return the specs
	 * @throws io.rediskit.autoconfigure.support.InvalidPropertiesException naming every property at fault
	 */
	static CacheSpecs of(CacheProperties properties) {
		PropertyChecks checks = new PropertyChecks();
		if (properties.getHeartbeat().toMillis() < 1) {
			checks.reject(PREFIX + "heartbeat", properties.getHeartbeat(), PREFIX + "heartbeat must be at least 1ms, was "
					+ PropertyChecks.text(properties.getHeartbeat()));
		}
		CacheSpec defaults = checks.spec(properties, PREFIX, () -> defaults(properties));
		// A fault of a default would be reported again for every cache that inherits it.
		Map<String, CacheSpec> caches = (defaults != null) ? checks.entries(properties, PREFIX, "caches", "cache",
				properties.getCaches(), (cache) -> spec(cache, properties)) : Map.of();
		checks.throwIfInvalid();
		return new CacheSpecs(Objects.requireNonNull(defaults), caches);
	}

	/** @return the spec of caches not configured */
	CacheSpec defaults() {
		return this.defaults;
	}

	/** @return the configured caches' specs by name, in the configuration's order */
	Map<String, CacheSpec> caches() {
		return this.caches;
	}

	private static CacheSpec defaults(CacheProperties defaults) {
		return new CacheSpec(defaults.getTtl(), defaults.getTtlJitter(), defaults.isCacheNullValues(),
				defaults.getNullTtl(), defaults.getLoadTimeout(), near(defaults.getNearCache(), null),
				defaults.getEarlyRefresh(), defaults.getStaleWhileRevalidate(), defaults.getOutagePolicy(),
				defaults.getBloomFilter(), defaults.getSingleFlight());
	}

	private static CacheSpec spec(Cache cache, CacheProperties defaults) {
		return new CacheSpec(or(cache.getTtl(), defaults.getTtl()), or(cache.getTtlJitter(), defaults.getTtlJitter()),
				or(cache.getCacheNullValues(), defaults.isCacheNullValues()),
				or(cache.getNullTtl(), defaults.getNullTtl()), or(cache.getLoadTimeout(), defaults.getLoadTimeout()),
				near(defaults.getNearCache(), cache.getNearCache()),
				or(cache.getEarlyRefresh(), defaults.getEarlyRefresh()),
				or(cache.getStaleWhileRevalidate(), defaults.getStaleWhileRevalidate()),
				or(cache.getOutagePolicy(), defaults.getOutagePolicy()),
				(cache.getBloomFilter() != null) ? cache.getBloomFilter() : defaults.getBloomFilter(),
				or(cache.getSingleFlight(), defaults.getSingleFlight()));
	}

	private static @Nullable NearCacheSpec near(Near defaults, @Nullable NearOverride own) {
		boolean on = (own != null && own.getEnabled() != null) ? own.getEnabled() : defaults.isEnabled();
		if (!on) {
			return null;
		}
		try {
			return new NearCacheSpec(or((own != null) ? own.getMaxEntries() : null, defaults.getMaxEntries()),
					or((own != null) ? own.getTtl() : null, defaults.getTtl()),
					or((own != null) ? own.getInvalidation() : null, defaults.getInvalidation()));
		}
		catch (InvalidSpecException ex) {
			// Reported under near-cache.: the component as the cache's properties name it.
			throw new InvalidSpecException("nearCache." + ex.getComponent(), ex.getReason());
		}
	}

	private static <T> T or(@Nullable T own, T inherited) {
		return (own != null) ? own : inherited;
	}

}
