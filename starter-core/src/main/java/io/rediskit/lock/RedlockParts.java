package io.rediskit.lock;

import io.rediskit.support.Listeners;

/**
 * The parts the locks of one {@link RedlockRegistry} share, wired once by the registry; no behaviour of its own.
 *
 * @param spec node timeout, lease, drift, retry and wait settings
 * @param nodes the independent servers and the rounds sent to them
 * @param holds the holds of the registry's owners, and their ids
 * @param background scheduler and its lifecycle
 * @param listeners told about acquisitions, releases, renewals and lost leases
 */
record RedlockParts(RedlockSpec spec, RedlockNodes nodes, RedlockHolds holds, RedlockBackground background,
		Listeners<LockListener> listeners) {
}
