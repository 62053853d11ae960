package io.rediskit.autoconfigure.lock;

import java.time.Duration;

import io.rediskit.lock.WaiterLineSpec;

/**
 * The settings of a lock-family member whose waiters keep a place in Redis (the fair lock under
 * {@code redis-kit.lock.fair}, the read-write lock under {@code redis-kit.lock.read-write}): the settings every
 * lock engine shares, with their own values, plus how long a waiter keeps its place. Checked when the registry
 * is built, by the rules of {@link io.rediskit.lock.WaiterLineSpec}.
 */
public abstract class WaiterLineProperties extends LockLeaseProperties {

	/**
	 * Whether to auto-configure this lock's registry.
	 */
	private boolean enabled = true;

	/**
	 * Longest a waiter sleeps between attempts when no wake-up arrives; at most a third of the waiter timeout is
	 * used.
	 */
	private Duration maxPollInterval = Duration.ofSeconds(1);

	/**
	 * How long a waiter keeps its place without attempting again (a fair lock's place in line, a read-write lock's
	 * waiting writer keeping new readers out): a waiter whose process died or stopped delays the others by this
	 * plus one poll interval at most.
	 */
	private Duration waiterTimeout = Duration.ofSeconds(5);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getMaxPollInterval() {
		return this.maxPollInterval;
	}

	public void setMaxPollInterval(Duration maxPollInterval) {
		this.maxPollInterval = maxPollInterval;
	}

	public Duration getWaiterTimeout() {
		return this.waiterTimeout;
	}

	public void setWaiterTimeout(Duration waiterTimeout) {
		this.waiterTimeout = waiterTimeout;
	}

}
