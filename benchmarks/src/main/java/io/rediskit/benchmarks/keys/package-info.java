/**
 * The {@code keys} benchmark: redis-kit's key scan against Redisson's and the bare driver's, and its batched
 * deletion of a big hash against {@code DEL} and {@code UNLINK}, as another client sees them.
 */
@NullMarked
package io.rediskit.benchmarks.keys;

import org.jspecify.annotations.NullMarked;
