package io.rediskit.sample;

import io.rediskit.ratelimit.RateLimitDecision;

/**
 * A {@link RateLimitDecision} as JSON, with its durations in milliseconds.
 *
 * @param limiter the limiter's name
 * @param outcome {@code ALLOWED}, {@code REJECTED}, or {@code ERROR_ALLOWED}/{@code ERROR_REJECTED} when Redis
 * could not answer and the failure policy decided
 * @param limit the most permits the key can be granted at once (the burst, for a token bucket)
 * @param remaining permits the key could still be granted now
 * @param retryAfterMillis 0 when allowed, else how long until the same request would be allowed
 * @param resetAfterMillis how long until the key is back to its full capacity
 */
public record DecisionView(String limiter, String outcome, long limit, long remaining, long retryAfterMillis,
		long resetAfterMillis) {

	static DecisionView of(String limiter, RateLimitDecision decision) {
		return new DecisionView(limiter, decision.outcome().name(), decision.limit(), decision.remaining(),
				decision.retryAfter().toMillis(), decision.resetAfter().toMillis());
	}

}
