package io.rediskit.bloom;

import java.time.Duration;
import java.util.Objects;

import io.rediskit.support.InvalidSpecException;

/**
 * How a {@link BloomGuard} remembers misses and waits for other loaders.
 *
 * @param absentTtl how long a loader miss is remembered as a null marker, from 1 ms
 * @param jitter the marker's TTL is stretched by a random share up to this, from 0 to 1, so that markers written
 * together do not expire together
 * @param lockWait how long a caller waits for another instance loading the same id before it loads itself
 */
public record BloomGuardSpec(Duration absentTtl, double jitter, Duration lockWait) {

	/**
	 * Validates the spec.
	 * @throws InvalidSpecException naming the component and the reason
	 */
	public BloomGuardSpec {
		Objects.requireNonNull(absentTtl, "absentTtl must not be null");
		Objects.requireNonNull(lockWait, "lockWait must not be null");
		if (absentTtl.compareTo(Duration.ofMillis(1)) < 0) {
			throw new InvalidSpecException("absentTtl", "must be at least 1ms, was " + absentTtl);
		}
		if (!(jitter >= 0 && jitter <= 1)) {
			throw new InvalidSpecException("jitter", "must be from 0 to 1, was " + jitter);
		}
		if (lockWait.isNegative()) {
			throw new InvalidSpecException("lockWait", "must not be negative, was " + lockWait);
		}
	}

	/** @return misses remembered for 60 s plus up to 20%, callers waiting up to 5 s for another loader */
	public static BloomGuardSpec defaults() {
		return new BloomGuardSpec(Duration.ofSeconds(60), 0.2, Duration.ofSeconds(5));
	}

}
