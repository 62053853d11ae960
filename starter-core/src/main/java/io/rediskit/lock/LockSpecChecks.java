package io.rediskit.lock;

import java.time.Duration;
import java.util.Objects;

import io.rediskit.support.Expiry;
import io.rediskit.support.InvalidSpecException;
import org.jspecify.annotations.Nullable;

/**
 * The checks of the settings every lock engine shares (watchdog timeout, default lease, default wait), written
 * once for {@link LockSpec} and {@link RedlockSpec}, and the duration checks both apply to their own settings.
 * Each failure is an {@link InvalidSpecException} naming the setting.
 */
final class LockSpecChecks {

	private LockSpecChecks() {
	}

	/**
	 * Checks the shared settings.
	 * @throws NullPointerException if {@code watchdogTimeout} or {@code defaultWaitTime} is missing
	 */
	static void requireShared(Duration watchdogTimeout, @Nullable Duration defaultLeaseTime, Duration defaultWaitTime) {
		requirePositive("watchdogTimeout", watchdogTimeout);
		if (defaultLeaseTime != null) {
			requirePositive("defaultLeaseTime", defaultLeaseTime);
		}
		Objects.requireNonNull(defaultWaitTime, "defaultWaitTime must not be null");
		if (defaultWaitTime.isNegative()) {
			throw new InvalidSpecException("defaultWaitTime",
					"must be zero (a single attempt) or positive, was " + defaultWaitTime);
		}
		Expiry.requireAtMostMax("defaultWaitTime", defaultWaitTime);
	}

	/** Checks a duration that must be at least 1ms and at most {@link Expiry#MAX}. */
	static void requirePositive(String name, Duration value) {
		Expiry.requirePositive(name, value);
	}

	/** Checks a duration that may be zero and must be at most {@link Expiry#MAX}. */
	static void requireNotNegative(String name, Duration value) {
		Objects.requireNonNull(value, () -> name + " must not be null");
		if (value.isNegative()) {
			throw new InvalidSpecException(name, "must be zero or positive, was " + value);
		}
		Expiry.requireAtMostMax(name, value);
	}

}
