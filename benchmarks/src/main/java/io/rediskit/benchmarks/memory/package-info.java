/**
 * The {@code memory} benchmark: Redis bytes per unit of work for each primitive, side by side with Redisson,
 * so that a user can size a server.
 */
@NullMarked
package io.rediskit.benchmarks.memory;

import org.jspecify.annotations.NullMarked;
