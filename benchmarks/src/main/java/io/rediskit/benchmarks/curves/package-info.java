/**
 * The {@code curves} benchmark: how each primitive's server memory and time per operation grow with its size,
 * side by side with Redisson, one command for every curve; the sizes are parameters.
 */
@NullMarked
package io.rediskit.benchmarks.curves;

import org.jspecify.annotations.NullMarked;
