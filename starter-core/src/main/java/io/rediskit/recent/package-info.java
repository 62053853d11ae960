/**
 * Recent items: {@link io.rediskit.recent.RecentItemsRegistry} hands out {@link io.rediskit.recent.RecentItems},
 * a per-user "recently viewed" list (newest first, capped, expiring after inactivity) with a global "trending"
 * count of views over a sliding period, each view one round trip.
 */
@NullMarked
package io.rediskit.recent;

import org.jspecify.annotations.NullMarked;
