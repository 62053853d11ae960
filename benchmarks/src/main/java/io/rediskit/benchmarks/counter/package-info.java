/**
 * The {@code counter} benchmark: the union of unique counters, redis-kit's against Redisson's
 * {@code RHyperLogLog.countWith}.
 */
@NullMarked
package io.rediskit.benchmarks.counter;

import org.jspecify.annotations.NullMarked;
