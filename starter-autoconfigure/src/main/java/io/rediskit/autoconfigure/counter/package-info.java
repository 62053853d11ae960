/**
 * Auto-configuration of unique counters: properties, the registry, metrics.
 */
@NullMarked
package io.rediskit.autoconfigure.counter;

import org.jspecify.annotations.NullMarked;
