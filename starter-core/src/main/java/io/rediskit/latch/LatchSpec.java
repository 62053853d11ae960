package io.rediskit.latch;

import java.time.Duration;

import io.rediskit.lock.LockSpec;
import io.rediskit.support.Expiry;

/**
 * How a {@link LatchRegistry} keeps its count-down latches.
 *
 * @param abandonedAfter how long a latch whose count is above zero is kept after it was set or last counted
 * down; when nobody counts it down for that long it is abandoned: its key expires and the latch reads as not set
 * (its waiters are not released: they wait until their own timeout)
 * @param openFor how long a latch that reached zero stays readable as open, so that waiters that come late pass
 * at once; after it the latch reads as not set and can be set again
 * @param maxPollInterval longest a waiter sleeps between reads of the count when no message arrives; bounds the
 * latency a lost pub/sub message can cost
 */
public record LatchSpec(Duration abandonedAfter, Duration openFor, Duration maxPollInterval) {

	/** Default {@link #abandonedAfter()}: one day. */
	public static final Duration DEFAULT_ABANDONED_AFTER = Duration.ofDays(1);

	/** Default {@link #openFor()}: one hour. */
	public static final Duration DEFAULT_OPEN_FOR = Duration.ofHours(1);

	/**
	 * Validates the settings.
	 * @throws io.rediskit.support.InvalidSpecException naming the setting that is out of range
	 */
	public LatchSpec {
		Expiry.requirePositive("abandonedAfter", abandonedAfter);
		Expiry.requirePositive("openFor", openFor);
		Expiry.requirePositive("maxPollInterval", maxPollInterval);
	}

	/** @return the defaults: abandoned after a day, open for an hour, 1 s longest poll */
	public static LatchSpec defaults() {
		return new LatchSpec(DEFAULT_ABANDONED_AFTER, DEFAULT_OPEN_FOR, LockSpec.DEFAULT_MAX_POLL_INTERVAL);
	}

}
