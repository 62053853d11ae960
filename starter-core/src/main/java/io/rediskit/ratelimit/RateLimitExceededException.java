package io.rediskit.ratelimit;

/**
 * Thrown by a {@link RateLimited @RateLimited} method when its limiter rejects the call. Carries the decision,
 * whose {@link RateLimitDecision#retryAfter() retryAfter} says when to try again; the redis-kit starter turns it
 * into {@code 429 Too Many Requests} in web applications. The limited key is deliberately not part of it: keys
 * are often user data.
 */
public class RateLimitExceededException extends RuntimeException {

	private final String limiterName;

	private final transient RateLimitSpec spec;

	private final transient RateLimitDecision decision;

	/**
	 * @param limiterName the limiter that rejected the call
	 * @param spec the limiter's spec at the time
	 * @param decision its decision
	 */
	public RateLimitExceededException(String limiterName, RateLimitSpec spec, RateLimitDecision decision) {
		super("Rate limit '" + limiterName + "' exceeded" + (decision.fromFailurePolicy()
				? " (Redis unreachable, failing closed)" : "") + "; retry after " + decision.retryAfter());
		this.limiterName = limiterName;
		this.spec = spec;
		this.decision = decision;
	}

	/** @return the limiter's name */
	public String getLimiterName() {
		return this.limiterName;
	}

	/** @return the limiter's spec when it rejected the call */
	public RateLimitSpec getSpec() {
		return this.spec;
	}

	/** @return the rejection */
	public RateLimitDecision getDecision() {
		return this.decision;
	}

}
