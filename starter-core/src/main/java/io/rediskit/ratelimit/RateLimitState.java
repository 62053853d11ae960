package io.rediskit.ratelimit;

import java.time.Duration;
import java.util.Objects;

/**
 * A key's state as {@link RateLimiter#peek(String)} read it, without taking a permit: what a decision made at the
 * same moment would be told.
 *
 * @param limit the most permits the key can be granted at once, as in {@link RateLimitDecision#limit()}
 * @param remaining permits an acquisition could be granted now, all at once
 * @param retryAfter zero when one permit is free now; else how long until one is, if nothing else arrives
 * @param resetAfter how long until the key is back to its full capacity (zero when it is)
 */
public record RateLimitState(long limit, long remaining, Duration retryAfter, Duration resetAfter) {

	/**
	 * Validates the state.
	 * @throws NullPointerException if a duration is missing
	 */
	public RateLimitState {
		Objects.requireNonNull(retryAfter, "retryAfter must not be null");
		Objects.requireNonNull(resetAfter, "resetAfter must not be null");
	}

}
