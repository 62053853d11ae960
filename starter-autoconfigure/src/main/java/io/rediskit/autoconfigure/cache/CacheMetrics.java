package io.rediskit.autoconfigure.cache;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.rediskit.cache.RedisKitCache;
import io.rediskit.cache.RedisKitCacheManager;

import org.springframework.beans.factory.ObjectProvider;

/**
 * The gauge {@code rediskit.cache.near.size} ({@code cache}): entries in this instance's near cache, for each
 * configured cache that has one (caches created on first use are not known when the registry binds).
 */
public class CacheMetrics implements MeterBinder {

	private final ObjectProvider<RedisKitCacheManager> managers;

	private final Set<String> bound = ConcurrentHashMap.newKeySet();

	/**
	 * @param managers the cache manager, looked up when the gauges are bound
	 */
	public CacheMetrics(ObjectProvider<RedisKitCacheManager> managers) {
		this.managers = managers;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		RedisKitCacheManager manager = this.managers.getIfAvailable();
		if (manager == null) {
			return;
		}
		for (String name : manager.getCacheNames()) {
			if (manager.spec(name).nearCache() != null && this.bound.add(name)) {
				RedisKitCache cache = manager.getCache(name);
				Gauge.builder("rediskit.cache.near.size", cache, RedisKitCache::nearCacheSize)
					.description("Entries in this instance's near cache")
					.tag("cache", name)
					.register(registry);
			}
		}
	}

}
