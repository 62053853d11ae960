/**
 * Real {@code redis-server} (or {@code valkey-server}: one engine per JVM, see
 * {@link io.rediskit.testsupport.RedisServerBinary}) processes on free loopback ports for tests, benchmarks and the
 * sample app: start several, pause ({@code SIGSTOP}), resume, kill and restart one. Never port 6379, never a server
 * this code did not start. Network faults between a client and a running server (a black hole, a reset, a
 * delay, refused connections) come from a {@link io.rediskit.testsupport.FaultProxy} in front of it.
 * <p>
 * The topology harness on top: {@link io.rediskit.testsupport.RedisTopology} (a standalone server, a Cluster or a
 * Sentinel group with the connection factory an application would configure) and
 * {@link io.rediskit.testsupport.TopologyContract}, the base of contract suites run once per
 * {@link io.rediskit.testsupport.Topology}.
 */
@NullMarked
package io.rediskit.testsupport;

import org.jspecify.annotations.NullMarked;
