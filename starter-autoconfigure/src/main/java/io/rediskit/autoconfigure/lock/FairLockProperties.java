package io.rediskit.autoconfigure.lock;

import java.time.Duration;

import io.rediskit.autoconfigure.support.SpecErrors;
import io.rediskit.lock.FairLockSpec;
import io.rediskit.support.InvalidSpecException;

import org.springframework.validation.Errors;

/**
 * Fair lock settings, under {@code redis-kit.lock.fair}: the settings every lock engine shares, with their own
 * values, plus how long a waiter keeps its place in line. Validated when bound, by the rules of
 * {@link FairLockSpec}.
 */
public class FairLockProperties extends LockLeaseProperties {

	/**
	 * Whether to auto-configure the fair lock registry.
	 */
	private boolean enabled = true;

	/**
	 * Longest a waiter sleeps between attempts when no wake-up arrives; at most a third of the waiter timeout is
	 * used.
	 */
	private Duration maxPollInterval = Duration.ofSeconds(1);

	/**
	 * How long a waiter keeps its place in line without attempting again: a waiter whose process died or stopped
	 * delays those behind it by this plus one poll interval at most.
	 */
	private Duration waiterTimeout = FairLockSpec.DEFAULT_WAITER_TIMEOUT;

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

	/**
	 * @return the core spec these properties describe
	 * @throws InvalidSpecException if a value is out of range (startup validation prevents it)
	 */
	public FairLockSpec toSpec() {
		return new FairLockSpec(getWatchdogTimeout(), getDefaultLeaseTime(), getDefaultWaitTime(), this.maxPollInterval,
				this.waiterTimeout);
	}

	/**
	 * Validates these properties, bound under {@code prefix}.
	 * @param errors the errors, their nested path at this object
	 * @param prefix {@code redis-kit.lock.fair.}
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
