package io.rediskit.ratelimit;

import java.time.Duration;

/**
 * Observes rate-limit decisions, for metrics and logging. Methods have empty defaults; implementations run on
 * the caller's thread (for async calls, the driver's thread), so they must be fast and must not block. An
 * exception thrown by a listener is logged and ignored.
 * <p>
 * {@code limiterName} is the configured limiter name, never the per-call key, so it is safe as a metric tag.
 */
public interface RateLimitListener {

	/** A listener that does nothing. */
	RateLimitListener NONE = new RateLimitListener() {
	};

	/**
	 * A decision was made, by Redis or by the failure policy.
	 * @param limiterName the limiter's name
	 * @param decision the decision
	 * @param latency time from the call to the decision
	 */
	default void onDecision(String limiterName, RateLimitDecision decision, Duration latency) {
	}

	/**
	 * Redis could not answer and the failure policy decided; {@link #onDecision} follows.
	 * @param limiterName the limiter's name
	 * @param failure what went wrong
	 */
	default void onFailure(String limiterName, RuntimeException failure) {
	}

}
