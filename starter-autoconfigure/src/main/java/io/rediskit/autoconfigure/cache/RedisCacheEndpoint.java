package io.rediskit.autoconfigure.cache;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.rediskit.autoconfigure.support.Durations;
import io.rediskit.autoconfigure.support.InvalidEndpointRequest;
import io.rediskit.cache.CacheSpec;
import io.rediskit.cache.NearCacheInvalidation;
import io.rediskit.cache.NearCacheSpec;
import io.rediskit.cache.OutagePolicy;
import io.rediskit.cache.RedisKitCache;
import io.rediskit.cache.RedisKitCacheManager;
import io.rediskit.cache.SingleFlight;
import io.rediskit.instance.InstanceRegistry;
import io.rediskit.instance.ListedInstance;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * Actuator endpoint {@code rediskitcache}: every configured or used cache with its settings and this instance's
 * near-cache size and state ({@code GET /actuator/rediskitcache}); evicts one entry
 * ({@code DELETE /actuator/rediskitcache/{cache}/{key}}, the key as the cache stores it: the {@code toString()} of
 * the method's key) or every entry of a cache ({@code DELETE /actuator/rediskitcache/{cache}}), on every instance's
 * near cache too. An action takes a cache this instance lists, or one a live instance names in its heartbeat (with
 * {@code redis-kit.console.enabled}, see {@link InstanceRegistry}): a cache only other instances use is evicted from
 * or cleared in Redis and in their near caches without being made here (no subscription, no near cache). An action
 * on any other name is a bad request ({@code 400}), as in the queues' endpoint, and makes no cache; the name is not
 * echoed (it is user input). Durations are text as properties take them ({@code 10m}), as in every redis-kit
 * endpoint.
 */
@Endpoint(id = "rediskitcache")
public class RedisCacheEndpoint {

	private final RedisKitCacheManager manager;

	private final Supplier<@Nullable InstanceRegistry> instances;

	/**
	 * An endpoint that acts on the caches this instance lists only.
	 * @param manager the cache manager
	 */
	public RedisCacheEndpoint(RedisKitCacheManager manager) {
		this(manager, () -> null);
	}

	/**
	 * An endpoint that also acts on the caches other live instances use.
	 * @param manager the cache manager
	 * @param instances the registry of live instances, {@code null} when this instance keeps no heartbeat
	 */
	public RedisCacheEndpoint(RedisKitCacheManager manager, Supplier<@Nullable InstanceRegistry> instances) {
		this.manager = manager;
		this.instances = instances;
	}

	/** @return the caches, by name */
	@ReadOperation
	public List<CacheDescriptor> caches() {
		return this.manager.getCacheNames().stream().map(this::describe).toList();
	}

	/**
	 * Evicts one entry.
	 * @param cache the cache's name, one {@link #caches() listed} or {@link #knows(String) used by a live instance}
	 * @param key the entry's key
	 * @return whether it existed
	 * @throws org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException for any other name
	 */
	@DeleteOperation
	public Map<String, Boolean> evict(@Selector String cache, @Selector String key) {
		return Map.of("evicted", this.manager.evictIfPresent(acted(cache), key));
	}

	/**
	 * Evicts every entry of a cache.
	 * @param cache the cache's name, one {@link #caches() listed} or {@link #knows(String) used by a live instance}
	 * @return {@code cleared: true}
	 * @throws org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException for any other name
	 */
	@DeleteOperation
	public Map<String, Boolean> clear(@Selector String cache) {
		this.manager.clear(acted(cache));
		return Map.of("cleared", true);
	}

	/**
	 * Whether the actions take a cache: one this instance lists, or one a live instance names in its last heartbeat
	 * (read from Redis only for a name not listed here). The console asks this before its own actions.
	 * @param cache a cache's name
	 * @return whether it is known
	 */
	public boolean knows(String cache) {
		if (this.manager.getCacheNames().contains(cache)) {
			return true;
		}
		InstanceRegistry registry = this.instances.get();
		return registry != null && registry.list().stream().filter(ListedInstance::alive)
			.anyMatch((instance) -> instance.caches().contains(cache));
	}

	/**
	 * The name of the cache an action names, if known: any other valid name would be a cache nobody uses, and an
	 * invalid one an exception Actuator answers as a server error.
	 */
	private String acted(String cache) {
		if (!knows(cache)) {
			throw InvalidEndpointRequest.of("No cache is named so");
		}
		return cache;
	}

	private CacheDescriptor describe(String name) {
		RedisKitCache cache = this.manager.getCache(name);
		return new CacheDescriptor(name, SettingsDescriptor.of(cache.spec()), cache.nearCacheSize(),
				cache.nearCacheActive(),
				cache.nearCacheInvalidation());
	}

	/**
	 * One cache.
	 * @param name its name
	 * @param settings its settings
	 * @param nearCacheSize entries in this instance's near cache
	 * @param nearCacheActive whether the near cache answers reads now
	 * @param nearCacheInvalidation how the near cache learns of changes now: {@code tracking} (the server's
	 * invalidations), {@code pubsub} (the caches' own messages) or {@code none} (no near cache, or not decided yet)
	 */
	public record CacheDescriptor(String name, SettingsDescriptor settings, int nearCacheSize,
			boolean nearCacheActive, String nearCacheInvalidation) {
	}

	/**
	 * A cache's settings, its {@link CacheSpec} with durations as text ({@link Durations#format}).
	 * @param ttl how long an entry lives ({@code 10m})
	 * @param ttlJitter the fraction of the TTL added or taken at random
	 * @param cacheNullValues whether {@code null} is cached
	 * @param nullTtl how long a cached {@code null} lives
	 * @param loadTimeout how long a miss waits for another instance's load
	 * @param nearCache the near cache, {@code null} for none
	 * @param earlyRefresh the early refresh factor, 0 for none
	 * @param staleWhileRevalidate how long an entry past its TTL is still served while reloaded, {@code 0s} for never
	 * @param outagePolicy what reads do while Redis cannot answer
	 * @param bloomFilter the Bloom filter of the keys that exist, {@code null} for none
	 * @param singleFlight which misses load once across instances
	 */
	public record SettingsDescriptor(String ttl, double ttlJitter, boolean cacheNullValues, String nullTtl,
			String loadTimeout, @Nullable NearCacheDescriptor nearCache, double earlyRefresh,
			String staleWhileRevalidate, OutagePolicy outagePolicy, @Nullable String bloomFilter,
			SingleFlight singleFlight) {

		/**
		 * @param spec a cache's spec
		 * @return its settings as the endpoint shows them
		 */
		public static SettingsDescriptor of(CacheSpec spec) {
			NearCacheSpec near = spec.nearCache();
			return new SettingsDescriptor(Durations.format(spec.ttl()), spec.ttlJitter(), spec.cacheNullValues(),
					Durations.format(spec.nullTtl()), Durations.format(spec.loadTimeout()),
					(near != null) ? new NearCacheDescriptor(near.maxEntries(), Durations.format(near.ttl()),
							near.invalidation()) : null,
					spec.earlyRefresh(), Durations.format(spec.staleWhileRevalidate()), spec.outagePolicy(),
					spec.bloomFilter(), spec.singleFlight());
		}

	}

	/**
	 * A cache's near cache settings.
	 * @param maxEntries the most entries it keeps per instance
	 * @param ttl how long it keeps an entry ({@code 1m})
	 * @param invalidation how it learns of changes, as configured
	 */
	public record NearCacheDescriptor(int maxEntries, String ttl, NearCacheInvalidation invalidation) {
	}

}
