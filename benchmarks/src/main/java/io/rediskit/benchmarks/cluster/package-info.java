/**
 * The {@code cluster} benchmark: redis-kit and Redisson side by side on a local Redis Cluster.
 */
@NullMarked
package io.rediskit.benchmarks.cluster;

import org.jspecify.annotations.NullMarked;
