/**
 * Unique counters: {@link io.rediskit.counter.UniqueCounterRegistry} hands out
 * {@link io.rediskit.counter.UniqueCounter}s that count distinct members in HyperLogLogs (12 kB each, about
 * 0.81% standard error), all time or in hourly or daily buckets counted over ranges.
 */
@NullMarked
package io.rediskit.counter;

import org.jspecify.annotations.NullMarked;
