/**
 * Auto-configuration of recent items: properties, the registry, metrics.
 */
@NullMarked
package io.rediskit.autoconfigure.recent;

import org.jspecify.annotations.NullMarked;
