/**
 * Auto-configuration of leaderboards: properties, the registry, metrics.
 */
@NullMarked
package io.rediskit.autoconfigure.rank;

import org.jspecify.annotations.NullMarked;
