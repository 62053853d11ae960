package io.rediskit.autoconfigure.cache;

import java.util.List;
import java.util.Map;

import io.rediskit.cache.CacheSpec;
import io.rediskit.cache.RedisKitCache;
import io.rediskit.cache.RedisKitCacheManager;
import io.rediskit.support.Names;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * Actuator endpoint {@code rediskitcache}: every configured or used cache with its settings and this instance's
 * near-cache size and state ({@code GET /actuator/rediskitcache}); evicts one entry
 * ({@code DELETE /actuator/rediskitcache/{cache}/{key}}, the key as the cache stores it: the {@code toString()} of
 * the method's key) or every entry of a cache ({@code DELETE /actuator/rediskitcache/{cache}}), on every instance's
 * near cache too.
 */
@Endpoint(id = "rediskitcache")
public class RedisCacheEndpoint {

	private final RedisKitCacheManager manager;

	/**
	 * @param manager the cache manager
	 */
	public RedisCacheEndpoint(RedisKitCacheManager manager) {
		this.manager = manager;
	}

	/** @return the caches, by name */
	@ReadOperation
	public List<CacheDescriptor> caches() {
		return this.manager.getCacheNames().stream().map(this::describe).toList();
	}

	/**
	 * Evicts one entry.
	 * @param cache the cache's name
	 * @param key the entry's key
	 * @return whether it existed
	 */
	@DeleteOperation
	public Map<String, Boolean> evict(@Selector String cache, @Selector String key) {
		return Map.of("evicted", handle(cache).evictIfPresent(key));
	}

	/**
	 * Evicts every entry of a cache.
	 * @param cache the cache's name
	 * @return {@code cleared: true}
	 */
	@DeleteOperation
	public Map<String, Boolean> clear(@Selector String cache) {
		handle(cache).clear();
		return Map.of("cleared", true);
	}

	private RedisKitCache handle(String cache) {
		Names.requireValid("cache", cache);
		return this.manager.getCache(cache);
	}

	private CacheDescriptor describe(String name) {
		RedisKitCache cache = this.manager.getCache(name);
		return new CacheDescriptor(name, cache.spec(), cache.nearCacheSize(), cache.nearCacheActive(),
				cache.nearCacheInvalidation());
	}

	/**
	 * One cache.
	 * @param name its name
	 * @param settings its spec
	 * @param nearCacheSize entries in this instance's near cache
	 * @param nearCacheActive whether the near cache answers reads now
	 * @param nearCacheInvalidation how the near cache learns of changes now: {@code tracking} (the server's
	 * invalidations), {@code pubsub} (the caches' own messages) or {@code none} (no near cache, or not decided yet)
	 */
	public record CacheDescriptor(String name, CacheSpec settings, int nearCacheSize, boolean nearCacheActive,
			String nearCacheInvalidation) {
	}

}
