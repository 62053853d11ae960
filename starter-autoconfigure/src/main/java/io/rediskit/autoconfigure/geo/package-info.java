/**
 * Auto-configuration of the geo indexes: properties, the registry bean and its Micrometer listener.
 */
@NullMarked
package io.rediskit.autoconfigure.geo;

import org.jspecify.annotations.NullMarked;
