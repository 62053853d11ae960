package io.rediskit.keys;

import java.time.Duration;

/**
 * Told what the key tools' long-running work finds and removes, for progress bars, logs and metrics: a deletion's
 * progress and counts, a finished big-key report. These are reports and counts, not timings: each call itself
 * (its duration, its outcome, its error) is an observation ({@code rediskit.keys.operation}, see
 * {@link KeyTools}). Methods have empty defaults and run on the thread doing the work.
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
	 * A batch of a deletion completed: what it removed, for counters.
	 * @param operation {@code delete-key} or {@code delete-pattern}
	 * @param keys keys deleted by this batch
	 * @param elements elements removed by this batch
	 */
	default void onDeleted(String operation, long keys, long elements) {
	}

	/**
	 * A big-key report is complete.
	 * @param report the report
	 */
	default void onBigKeyReport(BigKeyReport report) {
	}

}
