/**
 * Auto-configuration of Bloom filters: properties, the registry, metrics, the {@code rediskitbloom} endpoint and
 * health indicator.
 */
@NullMarked
package io.rediskit.autoconfigure.bloom;

import org.jspecify.annotations.NullMarked;
