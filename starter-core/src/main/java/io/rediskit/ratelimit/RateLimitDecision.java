package io.rediskit.ratelimit;

import java.time.Duration;
import java.util.Objects;

/**
 * The answer to one {@link RateLimiter#tryAcquire(String, int)}.
 *
 * @param outcome allowed or rejected, and whether by the limiter or by the {@link FailurePolicy} because Redis
 * could not answer
 * @param limit the most permits the key can be granted at once: the limit, or the burst of
 * {@link RateLimitAlgorithm#TOKEN_BUCKET} and {@link RateLimitAlgorithm#GCRA}
 * @param remaining permits the key could still be granted right now (0 when the failure policy answered)
 * @param retryAfter zero when allowed; else how long until the same request would be allowed, if nothing else
 * arrives in between
 * @param resetAfter how long until the key is back to its full capacity (zero when it is, or when the failure
 * policy answered)
 */
public record RateLimitDecision(Outcome outcome, long limit, long remaining, Duration retryAfter,
		Duration resetAfter) {

	/**
	 * How long a decision of the failure policy asks callers to wait: Redis is unreachable, so nothing better
	 * is known.
	 */
	public static final Duration FAILURE_RETRY_AFTER = Duration.ofSeconds(1);

	/**
	 * Validates the decision.
	 * @throws NullPointerException if a component is missing
	 */
	public RateLimitDecision {
		Objects.requireNonNull(outcome, "outcome must not be null");
		Objects.requireNonNull(retryAfter, "retryAfter must not be null");
		Objects.requireNonNull(resetAfter, "resetAfter must not be null");
	}

	/**
	 * The decision of a failure policy.
	 * @param policy the policy
	 * @param limit the limiter's capacity
	 * @return an {@link Outcome#ERROR_ALLOWED} or {@link Outcome#ERROR_REJECTED} decision
	 */
	public static RateLimitDecision ofFailure(FailurePolicy policy, long limit) {
		return (policy == FailurePolicy.FAIL_OPEN)
				? new RateLimitDecision(Outcome.ERROR_ALLOWED, limit, 0, Duration.ZERO, Duration.ZERO)
				: new RateLimitDecision(Outcome.ERROR_REJECTED, limit, 0, FAILURE_RETRY_AFTER, Duration.ZERO);
	}

	/** @return whether the call may go ahead */
	public boolean allowed() {
		return this.outcome == Outcome.ALLOWED || this.outcome == Outcome.ERROR_ALLOWED;
	}

	/** @return whether Redis could not answer and the failure policy decided */
	public boolean fromFailurePolicy() {
		return this.outcome == Outcome.ERROR_ALLOWED || this.outcome == Outcome.ERROR_REJECTED;
	}

	/** How a decision was reached; {@link #tag()} is the {@code result} tag of the metrics. */
	public enum Outcome {

		/** Within the limit. */
		ALLOWED("allowed"),

		/** Over the limit. */
		REJECTED("rejected"),

		/** Redis could not answer; {@link FailurePolicy#FAIL_OPEN} allowed the call. */
		ERROR_ALLOWED("error-allowed"),

		/** Redis could not answer; {@link FailurePolicy#FAIL_CLOSED} denied the call. */
		ERROR_REJECTED("error-rejected");

		private final String tag;

		Outcome(String tag) {
			this.tag = tag;
		}

		/** @return the lower-case form used as a metric tag */
		public String tag() {
			return this.tag;
		}

	}

}
