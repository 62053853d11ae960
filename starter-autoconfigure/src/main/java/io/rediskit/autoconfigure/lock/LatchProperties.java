package io.rediskit.autoconfigure.lock;

import java.time.Duration;

import io.rediskit.latch.LatchSpec;

/**
 * Count-down latch settings, under {@code redis-kit.lock.latch}. Checked when the latch registry is built, by the
 * rules of {@link io.rediskit.latch.LatchSpec}.
 */
public class LatchProperties {

	/**
	 * Whether to auto-configure count-down latches.
	 */
	private boolean enabled = true;

	/**
	 * How long a latch whose count is above zero is kept after it was set or last counted down; then it expires as
	 * abandoned, without releasing its waiters.
	 */
	private Duration abandonedAfter = Duration.ofDays(1);

	/**
	 * How long a latch that reached zero stays open for late waiters before its key expires.
	 */
	private Duration openFor = Duration.ofHours(1);

	/**
	 * Longest a waiter sleeps between reads of the count when no message arrives.
	 */
	private Duration maxPollInterval = Duration.ofSeconds(1);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getAbandonedAfter() {
		return this.abandonedAfter;
	}

	public void setAbandonedAfter(Duration abandonedAfter) {
		this.abandonedAfter = abandonedAfter;
	}

	public Duration getOpenFor() {
		return this.openFor;
	}

	public void setOpenFor(Duration openFor) {
		this.openFor = openFor;
	}

	public Duration getMaxPollInterval() {
		return this.maxPollInterval;
	}

	public void setMaxPollInterval(Duration maxPollInterval) {
		this.maxPollInterval = maxPollInterval;
	}

}
