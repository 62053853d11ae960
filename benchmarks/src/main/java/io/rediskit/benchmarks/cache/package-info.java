/**
 * The {@code cache} benchmark: redis-kit's cache manager with and without its near cache beside Spring Data's
 * {@code RedisCacheManager}.
 */
@NullMarked
package io.rediskit.benchmarks.cache;

import org.jspecify.annotations.NullMarked;
