package io.rediskit.lock;

import java.time.Duration;

import io.rediskit.support.Listeners;
import io.rediskit.support.ThrottledLog;
import org.jspecify.annotations.Nullable;

/**
 * The shell the locks of one registry share, whatever the engine, wired once by the registry; no behaviour of its
 * own. Locks and their acquisitions use these parts and never call back into the registry.
 *
 * @param watchdogTimeout lease of a lock taken without an explicit lease time, renewed every third of it
 * @param defaultLeaseTime lease of a lock taken without an explicit lease time, or {@code null} for the watchdog
 * @param defaultWaitTime how long {@link RedisLock#acquire()} waits
 * @param engine how the locks talk to Redis
 * @param holds the holds of the registry's owners, and their ids
 * @param background scheduler, blocking executor and their lifecycle
 * @param listeners told about acquisitions, releases, renewals and lost leases
 * @param outages one warning per interval while Redis is unavailable
 * @param observations the waits and holds observed
 */
record LockParts(Duration watchdogTimeout, @Nullable Duration defaultLeaseTime, Duration defaultWaitTime,
		Engine engine, LockHolds holds, LockBackground background, Listeners<LockListener> listeners,
		ThrottledLog outages, LockObservations observations) {

	/**
	 * The same shell over another engine: the handles of one registry whose sides run different scripts (a
	 * read-write lock's read and write locks) share holds, watchdog and background.
	 * @param sibling the other engine, started and stopped by this one's owner
	 * @return parts that differ in the engine only
	 */
	LockParts withEngine(Engine sibling) {
		return new LockParts(this.watchdogTimeout, this.defaultLeaseTime, this.defaultWaitTime, sibling, this.holds,
				this.background, this.listeners, this.outages, this.observations);
	}

}
