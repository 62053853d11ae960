/**
 * Auto-configuration of the cache manager: {@code redis-kit.cache.*} properties, the
 * {@link io.rediskit.cache.RedisKitCacheManager} as the application's {@code CacheManager} when it has none,
 * metrics, the {@code rediskitcache} actuator endpoint and health indicator.
 */
@NullMarked
package io.rediskit.autoconfigure.cache;

import org.jspecify.annotations.NullMarked;
