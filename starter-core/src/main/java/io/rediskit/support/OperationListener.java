package io.rediskit.support;

import java.time.Duration;

/**
 * What a listener of named calls is told of each call: it completed, Redis could not answer, or Redis answered and
 * refused a write past its retention. Methods have empty defaults, run on the caller's (or the driver's) thread
 * and must not block; an exception thrown by a listener is logged and ignored. {@code name} is the configured
 * name of the structure, never a user, so it is safe as a metric tag.
 */
public interface OperationListener {

	/**
	 * A call completed.
	 * @param name the configured name
	 * @param operation what was done, such as {@code add}, {@code count} or {@code check-in}
	 * @param latency time from the call to the reply
	 */
	default void onOperation(String name, String operation, Duration latency) {
	}

	/**
	 * Redis could not answer; the call fails with the exception.
	 * @param name the configured name
	 * @param operation what was attempted
	 * @param failure what went wrong
	 */
	default void onFailure(String name, String operation, RuntimeException failure) {
	}

	/**
	 * Redis answered, and refused the write: its month or bucket is past the retention, and nothing was written.
	 * The call fails with the refusal.
	 * @param name the configured name
	 * @param operation the refused operation
	 * @param latency time from the call to the reply
	 * @param refusal the exception the call fails with
	 */
	default void onRefused(String name, String operation, Duration latency, RetentionPassedException refusal) {
	}

}
