package io.rediskit.lock;

import java.time.Duration;

import io.rediskit.support.InvalidSpecException;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link FairLockRegistry} times its locks.
 *
 * @param watchdogTimeout lease of a lock taken without an explicit lease time; the watchdog renews it every
 * third of this while the owner holds the lock
 * @param defaultLeaseTime lease of a lock taken without an explicit lease time, or {@code null} for the watchdog
 * @param defaultWaitTime how long {@link RedisLock#acquire()} waits when it names no wait time; zero means a
 * single attempt
 * @param maxPollInterval longest a waiter sleeps between attempts when no wake-up arrives
 * @param waiterTimeout how long a waiter keeps its place in line without attempting again: a waiter whose
 * process died or stopped holds up the line for this long at most. Live waiters attempt at least every third
 * of it, so it only needs to cover a waiter's pauses (a long GC), not the holder's lease
 */
public record FairLockSpec(Duration watchdogTimeout, @Nullable Duration defaultLeaseTime, Duration defaultWaitTime,
		Duration maxPollInterval, Duration waiterTimeout) {

	/** Default {@link #waiterTimeout()}: 5 seconds. */
	public static final Duration DEFAULT_WAITER_TIMEOUT = Duration.ofSeconds(5);

	/**
	 * Validates the settings.
	 * @throws InvalidSpecException naming the setting that is out of range
	 * @throws NullPointerException if a setting other than {@code defaultLeaseTime} is missing
	 */
	public FairLockSpec {
		LockSpecChecks.requireShared(watchdogTimeout, defaultLeaseTime, defaultWaitTime);
		LockSpecChecks.requirePositive("maxPollInterval", maxPollInterval);
		LockSpecChecks.requirePositive("waiterTimeout", waiterTimeout);
		if (waiterTimeout.toMillis() < 3) {
			throw new InvalidSpecException("waiterTimeout",
					"must be at least 3ms (waiters attempt every third of it), was " + waiterTimeout);
		}
	}

	/** @return the defaults: 30 s watchdog, watchdog leases, 10 s wait, 1 s longest poll, 5 s waiter timeout */
	public static FairLockSpec defaults() {
		return new FairLockSpec(LockSpec.DEFAULT_WATCHDOG_TIMEOUT, null, LockSpec.DEFAULT_WAIT_TIME,
				LockSpec.DEFAULT_MAX_POLL_INTERVAL, DEFAULT_WAITER_TIMEOUT);
	}

	/**
	 * @param timeout the new waiter timeout
	 * @return a copy with that waiter timeout
	 */
	public FairLockSpec withWaiterTimeout(Duration timeout) {
		return new FairLockSpec(this.watchdogTimeout, this.defaultLeaseTime, this.defaultWaitTime,
				this.maxPollInterval, timeout);
	}

	/**
	 * @param timeout the new watchdog timeout
	 * @return a copy with that watchdog timeout
	 */
	public FairLockSpec withWatchdogTimeout(Duration timeout) {
		return new FairLockSpec(timeout, this.defaultLeaseTime, this.defaultWaitTime, this.maxPollInterval,
				this.waiterTimeout);
	}

	/**
	 * @param interval the new longest poll interval
	 * @return a copy with that interval
	 */
	public FairLockSpec withMaxPollInterval(Duration interval) {
		return new FairLockSpec(this.watchdogTimeout, this.defaultLeaseTime, this.defaultWaitTime, interval,
				this.waiterTimeout);
	}

	/**
	 * The longest time a waiter that died in line delays those behind it: its place lasts {@link #waiterTimeout()}
	 * after its last attempt, and the next waiter notices within its own sleep between attempts.
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
