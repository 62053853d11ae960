package io.rediskit.lock;

import java.time.Duration;

import io.rediskit.support.InvalidSpecException;
import org.jspecify.annotations.Nullable;

/**
 * How the members of the lock family whose waiters keep a place in Redis time their locks: the fair lock
 * ({@link FairLockRegistry}: a waiter's place in line) and the read-write lock ({@link ReadWriteLockRegistry}: a
 * waiting writer's claim, which keeps new readers out). One spec for both, since both hold a waiter's place the
 * same way.
 *
 * @param watchdogTimeout lease of a lock taken without an explicit lease time; the watchdog renews it every
 * third of this while the owner holds the lock
 * @param defaultLeaseTime lease of a lock taken without an explicit lease time, or {@code null} for the watchdog
 * @param defaultWaitTime how long {@link RedisLock#acquire()} waits when it names no wait time; zero means a
 * single attempt
 * @param maxPollInterval longest a waiter sleeps between attempts when no wake-up arrives
 * @param waiterTimeout how long a waiter keeps its place without attempting again (a fair lock's place in line,
 * a read-write lock's waiting writer keeping new readers out): a waiter whose process died or stopped holds up
 * the others for this long at most. Live waiters attempt at least every third of it, so it only needs to cover
 * a waiter's pauses (a long GC), not the holder's lease
 */
public record WaiterLineSpec(Duration watchdogTimeout, @Nullable Duration defaultLeaseTime, Duration defaultWaitTime,
		Duration maxPollInterval, Duration waiterTimeout) {

	/** Default {@link #waiterTimeout()}: 5 seconds. */
	public static final Duration DEFAULT_WAITER_TIMEOUT = Duration.ofSeconds(5);

	/**
	 * Validates the settings.
	 * @throws InvalidSpecException naming the setting that is out of range
	 * @throws NullPointerException if a setting other than {@code defaultLeaseTime} is missing
	 */
	public WaiterLineSpec {
		LockSpecChecks.requireShared(watchdogTimeout, defaultLeaseTime, defaultWaitTime);
		LockSpecChecks.requirePositive("maxPollInterval", maxPollInterval);
		LockSpecChecks.requirePositive("waiterTimeout", waiterTimeout);
		if (waiterTimeout.toMillis() < 3) {
			throw new InvalidSpecException("waiterTimeout",
					"must be at least 3ms (waiters attempt every third of it), was " + waiterTimeout);
		}
	}

	/** @return the defaults: 30 s watchdog, watchdog leases, 10 s wait, 1 s longest poll, 5 s waiter timeout */
	public static WaiterLineSpec defaults() {
		return new WaiterLineSpec(LockSpec.DEFAULT_WATCHDOG_TIMEOUT, null, LockSpec.DEFAULT_WAIT_TIME,
				LockSpec.DEFAULT_MAX_POLL_INTERVAL, DEFAULT_WAITER_TIMEOUT);
	}

	/**
	 * @param timeout the new waiter timeout
	 * @return a copy with that waiter timeout
	 */
	public WaiterLineSpec withWaiterTimeout(Duration timeout) {
		return new WaiterLineSpec(this.watchdogTimeout, this.defaultLeaseTime, this.defaultWaitTime,
				this.maxPollInterval, timeout);
	}

	/**
	 * @param timeout the new watchdog timeout
	 * @return a copy with that watchdog timeout
	 */
	public WaiterLineSpec withWatchdogTimeout(Duration timeout) {
		return new WaiterLineSpec(timeout, this.defaultLeaseTime, this.defaultWaitTime, this.maxPollInterval,
				this.waiterTimeout);
	}

	/**
	 * @param interval the new longest poll interval
	 * @return a copy with that interval
	 */
	public WaiterLineSpec withMaxPollInterval(Duration interval) {
		return new WaiterLineSpec(this.watchdogTimeout, this.defaultLeaseTime, this.defaultWaitTime, interval,
				this.waiterTimeout);
	}

	/**
	 * The longest time a waiter that died delays the others (those behind it in a fair lock's line, new readers
	 * of a read-write lock): its place lasts {@link #waiterTimeout()} after its last attempt, and the others
	 * notice within their own sleep between attempts.
	 * @return the bound
	 */
	public Duration deadWaiterDelayBound() {
		return this.waiterTimeout.plus(sleepBetweenAttempts());
	}

	/** @return the longest sleep of a waiter: the poll interval, at most a third of the waiter timeout */
	Duration sleepBetweenAttempts() {
		Duration third = this.waiterTimeout.dividedBy(3);
		return (third.compareTo(this.maxPollInterval) < 0) ? third : this.maxPollInterval;
	}

}
