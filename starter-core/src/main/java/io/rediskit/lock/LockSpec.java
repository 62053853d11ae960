package io.rediskit.lock;

import java.time.Duration;
import java.util.Objects;

import io.rediskit.support.Expiry;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.ReplicaWait;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link LockRegistry} times its locks.
 *
 * @param watchdogTimeout lease of a lock taken without an explicit lease time; the watchdog renews it every
 * third of this while the owner holds the lock
 * @param defaultLeaseTime lease of a lock taken without an explicit lease time, or {@code null} for the
 * watchdog
 * @param defaultWaitTime how long {@link RedisLock#acquire()} and {@code @DistributedLock} wait when they name
 * no wait time; zero means a single attempt
 * @param maxPollInterval longest a waiter sleeps between attempts when no release notification arrives;
 * bounds the latency a lost pub/sub message can cost
 * @param replicaWait whether an acquisition and a renewal wait for replicas ({@code WAIT}) before they count,
 * and what a shortfall does: {@link ReplicaWait.Shortfall#FAIL} releases the acquisition and throws
 * {@link LockNotReplicatedException}, {@link ReplicaWait.Shortfall#ACCEPT} keeps it and tells
 * {@link LockListener#onReplicaShortfall}; a renewal's shortfall is only reported. Off by default.
 */
public record LockSpec(Duration watchdogTimeout, @Nullable Duration defaultLeaseTime, Duration defaultWaitTime,
		Duration maxPollInterval, ReplicaWait replicaWait) {

	/** Default {@link #watchdogTimeout()}: 30 seconds. */
	public static final Duration DEFAULT_WATCHDOG_TIMEOUT = Duration.ofSeconds(30);

	/** Default {@link #defaultWaitTime()}: 10 seconds. */
	public static final Duration DEFAULT_WAIT_TIME = Duration.ofSeconds(10);

	/** Default {@link #maxPollInterval()}: 1 second. */
	public static final Duration DEFAULT_MAX_POLL_INTERVAL = Duration.ofSeconds(1);

	/**
	 * Longest duration accepted for any setting, and for the wait and lease times of a call: {@link Expiry#MAX}
	 * (100 years), the bound of every TTL, since a lease is one.
	 */
	public static final Duration MAX_DURATION = Expiry.MAX;

	/**
	 * Validates the settings.
	 * @throws InvalidSpecException naming the setting that is out of range
	 * @throws NullPointerException if a setting other than {@code defaultLeaseTime} is missing
	 */
	public LockSpec {
		LockSpecChecks.requireShared(watchdogTimeout, defaultLeaseTime, defaultWaitTime);
		LockSpecChecks.requirePositive("maxPollInterval", maxPollInterval);
		Objects.requireNonNull(replicaWait, "replicaWait must not be null");
	}

	/**
	 * A spec whose writes do not wait for replicas.
	 * @param watchdogTimeout as in the canonical constructor
	 * @param defaultLeaseTime as in the canonical constructor
	 * @param defaultWaitTime as in the canonical constructor
	 * @param maxPollInterval as in the canonical constructor
	 */
	public LockSpec(Duration watchdogTimeout, @Nullable Duration defaultLeaseTime, Duration defaultWaitTime,
			Duration maxPollInterval) {
		this(watchdogTimeout, defaultLeaseTime, defaultWaitTime, maxPollInterval, ReplicaWait.NONE);
	}

	/** @return the defaults: 30 s watchdog, watchdog leases, 10 s wait, 1 s longest poll */
	public static LockSpec defaults() {
		return new LockSpec(DEFAULT_WATCHDOG_TIMEOUT, null, DEFAULT_WAIT_TIME, DEFAULT_MAX_POLL_INTERVAL);
	}

	/**
	 * @param timeout the new watchdog timeout
	 * @return a copy with that watchdog timeout
	 */
	public LockSpec withWatchdogTimeout(Duration timeout) {
		return new LockSpec(timeout, this.defaultLeaseTime, this.defaultWaitTime, this.maxPollInterval, this.replicaWait);
	}

	/**
	 * @param leaseTime the new default lease, or {@code null} for the watchdog
	 * @return a copy with that default lease
	 */
	public LockSpec withDefaultLeaseTime(@Nullable Duration leaseTime) {
		return new LockSpec(this.watchdogTimeout, leaseTime, this.defaultWaitTime, this.maxPollInterval, this.replicaWait);
	}

	/**
	 * @param waitTime the new default wait
	 * @return a copy with that default wait
	 */
	public LockSpec withDefaultWaitTime(Duration waitTime) {
		return new LockSpec(this.watchdogTimeout, this.defaultLeaseTime, waitTime, this.maxPollInterval, this.replicaWait);
	}

	/**
	 * @param interval the new longest poll interval
	 * @return a copy with that interval
	 */
	public LockSpec withMaxPollInterval(Duration interval) {
		return new LockSpec(this.watchdogTimeout, this.defaultLeaseTime, this.defaultWaitTime, interval, this.replicaWait);
	}

	/**
	 * @param wait whether and how acquisitions and renewals wait for replicas
	 * @return a copy with that replica wait
	 */
	public LockSpec withReplicaWait(ReplicaWait wait) {
		return new LockSpec(this.watchdogTimeout, this.defaultLeaseTime, this.defaultWaitTime, this.maxPollInterval,
				wait);
	}

}
