package io.rediskit.autoconfigure.lock;

import java.time.Duration;

import io.rediskit.lock.LockSpec;

/**
 * Semaphore settings, under {@code redis-kit.lock.semaphore}: the lease settings every member of the lock family
 * shares ({@link LockLeaseProperties}) and the longest poll. Checked when the semaphore registry is
 * built, by the rules of {@link io.rediskit.lock.LockSpec}.
 */
public class SemaphoreProperties extends LockLeaseProperties {

	/**
	 * Whether to auto-configure semaphores and @DistributedSemaphore.
	 */
	private boolean enabled = true;

	/**
	 * Whether methods annotated @DistributedSemaphore run without a permit while semaphores are off
	 * (enabled=false); when false, such a method fails startup, naming it.
	 */
	private boolean unguardedWhenDisabled;

	/**
	 * Longest a waiter sleeps between attempts when no release notification arrives.
	 */
	private Duration maxPollInterval = Duration.ofSeconds(1);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public boolean isUnguardedWhenDisabled() {
		return this.unguardedWhenDisabled;
	}

	public void setUnguardedWhenDisabled(boolean unguardedWhenDisabled) {
		this.unguardedWhenDisabled = unguardedWhenDisabled;
	}

	public Duration getMaxPollInterval() {
		return this.maxPollInterval;
	}

	public void setMaxPollInterval(Duration maxPollInterval) {
		this.maxPollInterval = maxPollInterval;
	}

}
