/**
 * Caching that protects the database: {@link io.rediskit.cache.RedisKitCacheManager} is a Spring
 * {@link org.springframework.cache.CacheManager} whose caches keep JSON values in Redis with a TTL and jitter per
 * cache, load a missing entry once across every instance ({@code @Cacheable(sync = true)}), bypass Redis to the
 * loader while it is down, and optionally keep a bounded near cache in each instance, invalidated through pub/sub.
 */
@NullMarked
package io.rediskit.cache;

import org.jspecify.annotations.NullMarked;
