package io.rediskit.recent;

import java.time.Duration;

/**
 * Observes recent-items calls, for metrics. Methods have empty defaults, run on the caller's (or the driver's)
 * thread and must not block; an exception thrown by a listener is logged and ignored. {@code list} is the
 * configured name, safe as a metric tag.
 */
public interface RecentItemsListener {

	/** A listener that does nothing. */
	RecentItemsListener NONE = new RecentItemsListener() {
	};

	/**
	 * A call completed.
	 * @param list the list's name
	 * @param operation {@code view}, {@code recent}, {@code trending} or {@code forget}
	 * @param latency time from the call to the reply
	 */
	default void onOperation(String list, String operation, Duration latency) {
	}

	/**
	 * Redis could not answer; the call fails with the exception.
	 * @param list the list's name
	 * @param operation as for {@link #onOperation}
	 * @param failure what went wrong
	 */
	default void onFailure(String list, String operation, RuntimeException failure) {
	}

}
