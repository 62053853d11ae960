package io.rediskit.counter;

import java.time.Duration;

import io.rediskit.support.RetentionPassedException;

/**
 * Observes unique counter calls, for metrics. Methods have empty defaults, run on the caller's (or the driver's)
 * thread and must not block; an exception thrown by a listener is logged and ignored. {@code counterName} is
 * the configured name, safe as a metric tag.
 */
public interface UniqueCounterListener {

	/** A listener that does nothing. */
	UniqueCounterListener NONE = new UniqueCounterListener() {
	};

	/**
	 * A call completed.
	 * @param counterName the counter's name
	 * @param operation {@code add} or {@code count}
	 * @param latency time from the call to the reply
	 */
	default void onOperation(String counterName, String operation, Duration latency) {
	}

	/**
	 * Redis could not answer; the call fails with the exception.
	 * @param counterName the counter's name
	 * @param operation {@code add} or {@code count}
	 * @param failure what went wrong
	 */
	default void onFailure(String counterName, String operation, RuntimeException failure) {
	}

	/**
	 * Redis answered, and refused the write: its month or bucket is past the retention, and nothing was written.
	 * The call fails with the refusal.
	 * @param counterName the configured name
	 * @param operation the refused operation ({@code add})
	 * @param latency time from the call to the reply
	 * @param refusal the exception the call fails with
	 */
	default void onRefused(String counterName, String operation, Duration latency,
			RetentionPassedException refusal) {
	}

}
