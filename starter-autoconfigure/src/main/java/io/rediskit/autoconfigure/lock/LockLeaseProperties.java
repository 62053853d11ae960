package io.rediskit.autoconfigure.lock;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The settings every lock engine shares, one group reused at {@code redis-kit.lock} (the single-node lock) and at
 * {@code redis-kit.lock.redlock} (Redlock), so that a setting has one name, one default and one meaning on both:
 * the watchdog timeout, the default lease and the default wait.
 */
public abstract class LockLeaseProperties {

	/**
	 * Lease of locks taken without a lease time; the watchdog renews it every third of this while the owner
	 * holds the lock.
	 */
	private Duration watchdogTimeout = Duration.ofSeconds(30);

	/**
	 * How long a caller that names no wait time waits for a lock or permits of this group: acquire() without
	 * arguments, and @DistributedLock or @DistributedSemaphore with an empty waitTime; 0 makes a single attempt.
	 */
	private Duration defaultWaitTime = Duration.ofSeconds(10);

	/**
	 * Lease of locks taken without a lease time, not renewed; unset to use watchdog-renewed leases.
	 */
	private @Nullable Duration defaultLeaseTime;

	public Duration getWatchdogTimeout() {
		return this.watchdogTimeout;
	}

	public void setWatchdogTimeout(Duration watchdogTimeout) {
		this.watchdogTimeout = watchdogTimeout;
	}

	public Duration getDefaultWaitTime() {
		return this.defaultWaitTime;
	}

	public void setDefaultWaitTime(Duration defaultWaitTime) {
		this.defaultWaitTime = defaultWaitTime;
	}

	public @Nullable Duration getDefaultLeaseTime() {
		return this.defaultLeaseTime;
	}

	public void setDefaultLeaseTime(@Nullable Duration defaultLeaseTime) {
		this.defaultLeaseTime = defaultLeaseTime;
	}

}
