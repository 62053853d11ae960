/**
 * Auto-configuration of id generators: properties, the registry, metrics.
 */
@NullMarked
package io.rediskit.autoconfigure.id;

import org.jspecify.annotations.NullMarked;
