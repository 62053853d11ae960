/**
 * Real {@code redis-server} processes on free loopback ports for tests, benchmarks and the sample app:
 * start several, pause ({@code SIGSTOP}), resume, kill and restart one. Never port 6379, never a server
 * this code did not start.
 */
@NullMarked
package io.rediskit.testsupport;

import org.jspecify.annotations.NullMarked;
