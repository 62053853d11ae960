package io.rediskit.autoconfigure.cache;

import io.rediskit.cache.RedisKitCacheManager;

/**
 * Builds a {@link RedisKitCacheManager} from the starter's wiring and the {@code redis-kit.cache} properties, for an
 * application that has a {@code CacheManager} of its own and wants this one beside it:
 * <pre>{@code
 * @Bean
 * RedisKitCacheManager redisKitCacheManager(RedisKitCacheManagerFactory factory) {
 *     return factory.create();
 * }
 * }</pre>
 * then {@code @Cacheable(cacheNames = "products", cacheManager = "redisKitCacheManager")}. Each call builds a
 * new manager with a subscription of its own; close it (Spring does for a bean) when done.
 */
@FunctionalInterface
public interface RedisKitCacheManagerFactory {

	/**
	 * @return a new manager
	 */
	RedisKitCacheManager create();

}
