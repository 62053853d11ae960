/**
 * The {@code geo} benchmark: nearby searches of redis-kit's geo indexes, sharded and unsharded, against
 * Redisson's {@code RGeo} and the bare driver.
 */
@NullMarked
package io.rediskit.benchmarks.geo;

import org.jspecify.annotations.NullMarked;
