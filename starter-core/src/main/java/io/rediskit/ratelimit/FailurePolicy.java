package io.rediskit.ratelimit;

/**
 * What a {@link RateLimiter} answers when Redis cannot: the connection is down, or no reply came within the
 * command timeout. Either way the call returns within the timeout, the decision says it came from the policy
 * ({@link RateLimitDecision#fromFailurePolicy()}), and listeners hear of it.
 */
public enum FailurePolicy {

	/**
	 * Allow the call. The default: most limits protect capacity, and an outage of the limiter should not turn
	 * into an outage of every endpoint it guards.
	 */
	FAIL_OPEN,

	/**
	 * Deny the call. For limits that guard against abuse, such as login attempts, where letting everything
	 * through is worse than refusing for a while.
	 */
	FAIL_CLOSED

}
