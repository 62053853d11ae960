/**
 * The meters redis-kit derives from its observations: one observation handler for every operation-shaped area.
 */
@NullMarked
package io.rediskit.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
