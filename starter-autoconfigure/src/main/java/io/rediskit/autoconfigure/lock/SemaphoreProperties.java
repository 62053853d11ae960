package io.rediskit.autoconfigure.lock;

import java.time.Duration;

import io.rediskit.autoconfigure.support.SpecErrors;
import io.rediskit.lock.LockSpec;
import io.rediskit.support.InvalidSpecException;

import org.springframework.validation.Errors;

/**
 * Semaphore settings, under {@code redis-kit.lock.semaphore}: the lease settings every member of the lock family
 * shares ({@link LockLeaseProperties}) and the longest poll. Validated when bound, by the rules of
 * {@link LockSpec}.
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

	/**
	 * @return the spec of the semaphore registry
	 * @throws InvalidSpecException if a value is out of range (startup validation prevents it)
	 */
	public LockSpec toSpec() {
		return new LockSpec(getWatchdogTimeout(), getDefaultLeaseTime(), getDefaultWaitTime(), this.maxPollInterval);
	}

	/**
	 * Validates these properties, bound under {@code prefix}.
	 * @param errors the errors, their nested path at this object
	 * @param prefix {@code redis-kit.lock.semaphore.}
	 */
	void validate(Errors errors, String prefix) {
		try {
			toSpec();
		}
		catch (InvalidSpecException ex) {
			SpecErrors.reject(errors, prefix, ex);
		}
	}

}
