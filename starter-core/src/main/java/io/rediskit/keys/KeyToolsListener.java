package io.rediskit.keys;

import java.time.Duration;

/**
 * Observes the key tools' long-running work, for progress bars, logs and metrics. Methods have empty defaults
 * and run on the thread doing the work.
 */
public interface KeyToolsListener {

	/** A listener that does nothing. */
	KeyToolsListener NONE = new KeyToolsListener() {
	};

	/**
	 * A deletion made progress: after each batch.
	 * @param operation {@code delete-key} or {@code delete-pattern}
	 * @param keys keys deleted so far
	 * @param elements elements removed so far
	 * @param elapsed time since it began
	 */
	default void onDeleteProgress(String operation, long keys, long elements, Duration elapsed) {
	}

	/**
	 * A big-key report is complete.
	 * @param report the report
	 */
	default void onBigKeyReport(BigKeyReport report) {
	}

}
