/**
 * The {@code queue} benchmark: redis-kit's delay queue against Redisson's {@code RDelayedQueue}.
 */
@NullMarked
package io.rediskit.benchmarks.queue;

import org.jspecify.annotations.NullMarked;
