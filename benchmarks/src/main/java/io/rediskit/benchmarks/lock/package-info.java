/**
 * The lock benchmark: {@link io.rediskit.lock.RedisLock} against Redisson's {@code RLock}, with and without
 * contention.
 */
@NullMarked
package io.rediskit.benchmarks.lock;

import org.jspecify.annotations.NullMarked;
