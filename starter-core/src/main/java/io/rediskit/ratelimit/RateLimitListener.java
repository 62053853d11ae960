package io.rediskit.ratelimit;

import java.time.Duration;
import java.util.List;

/**
 * Observes rate-limit decisions, for metrics and logging. Methods have empty defaults; implementations run on
 * the caller's thread, so they must be fast. An exception thrown by a listener is logged and ignored.
 * <p>
 * {@code limiterName} is the configured limiter name, never the per-call key, so it is safe as a metric tag.
 */
public interface RateLimitListener {

	/** A listener that does nothing. */
	RateLimitListener NONE = new RateLimitListener() {
	};

	/**
	 * One listener that tells several, in order.
	 * @param listeners the listeners
	 * @return {@link #NONE} for none, the listener itself for one, else a listener that calls each
	 */
	static RateLimitListener composite(List<? extends RateLimitListener> listeners) {
		if (listeners.isEmpty()) {
			return NONE;
		}
		if (listeners.size() == 1) {
			return listeners.get(0);
		}
		List<RateLimitListener> all = List.copyOf(listeners);
		return new RateLimitListener() {

			@Override
			public void onDecision(String limiterName, RateLimitDecision decision, Duration latency) {
				all.forEach((listener) -> listener.onDecision(limiterName, decision, latency));
			}

			@Override
			public void onFailure(String limiterName, RuntimeException failure) {
				all.forEach((listener) -> listener.onFailure(limiterName, failure));
			}

		};
	}

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
