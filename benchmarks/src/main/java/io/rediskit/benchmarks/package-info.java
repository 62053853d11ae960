/**
 * Runs redis-kit primitives and their Redisson counterparts side by side against one {@code redis-server}
 * and writes what it measured as JSON and PNG: {@link io.rediskit.benchmarks.BenchmarkMain} picks the
 * {@link io.rediskit.benchmarks.Benchmark}s, {@link io.rediskit.benchmarks.BenchmarkContext} holds the
 * server and both clients, {@link io.rediskit.benchmarks.ConcurrentLoad} drives the threads.
 */
@NullMarked
package io.rediskit.benchmarks;

import org.jspecify.annotations.NullMarked;
