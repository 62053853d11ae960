package io.rediskit.lock;

import io.rediskit.support.Listeners;
import io.rediskit.support.ThrottledLog;

/**
 * The parts the locks of one registry share, wired once by the {@link LockRegistry}; no behaviour of its own.
 * Locks and their acquisitions use these parts and never call back into the registry.
 *
 * @param spec lease, watchdog and wait defaults
 * @param scripts every Redis call of the lock
 * @param holds the holds of the registry's owners, and their ids
 * @param signals local waiters and release messages
 * @param background scheduler, blocking executor and their lifecycle
 * @param listeners told about acquisitions, releases, renewals and lost leases
 * @param outages one warning per interval while Redis is unavailable
 */
record LockParts(LockSpec spec, LockScripts scripts, LockHolds holds, ReleaseSignals signals,
		LockBackground background, Listeners<LockListener> listeners, ThrottledLog outages) {
}
