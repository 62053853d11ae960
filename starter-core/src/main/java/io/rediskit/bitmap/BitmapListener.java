package io.rediskit.bitmap;

import java.time.Duration;

import io.rediskit.support.RetentionPassedException;

/**
 * Observes calendar and packed-counter calls, for metrics. Methods have empty defaults, run on the caller's (or
 * the driver's) thread and must not block; an exception thrown by a listener is logged and ignored.
 * {@code name} is the configured calendar or counters name, never a user, so it is safe as a metric tag.
 */
public interface BitmapListener {

	/** A listener that does nothing. */
	BitmapListener NONE = new BitmapListener() {
	};

	/**
	 * A call completed.
	 * @param name the calendar's or counters' name
	 * @param operation such as {@code check-in}, {@code streak} or {@code increment}
	 * @param latency time from the call to the reply
	 */
	default void onOperation(String name, String operation, Duration latency) {
	}

	/**
	 * Redis could not answer; the call fails with the exception.
	 * @param name the calendar's or counters' name
	 * @param operation what was attempted
	 * @param failure what went wrong
	 */
	default void onFailure(String name, String operation, RuntimeException failure) {
	}

	/**
	 * Redis answered, and refused the write: its month or bucket is past the retention, and nothing was written.
	 * The call fails with the refusal.
	 * @param name the configured name
	 * @param operation the refused operation ({@code check-in})
	 * @param latency time from the call to the reply
	 * @param refusal the exception the call fails with
	 */
	default void onRefused(String name, String operation, Duration latency,
			RetentionPassedException refusal) {
	}

}
