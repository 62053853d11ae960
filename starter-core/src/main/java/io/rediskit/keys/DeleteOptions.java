package io.rediskit.keys;

import java.time.Duration;
import java.util.Objects;

import io.rediskit.support.InvalidSpecException;

/**
 * How a deletion runs.
 *
 * @param batchSize elements removed per command when a big collection is emptied, or keys per {@code UNLINK}
 * when deleting by pattern; from 1 to {@value #MAX_BATCH}
 * @param pause a pause after each batch, so other clients get the server between batches; zero for none
 * @param dryRun whether to only report what would be deleted
 * @param listLimit the most key names a dry run lists (it counts them all)
 */
public record DeleteOptions(int batchSize, Duration pause, boolean dryRun, int listLimit) {

	/** Largest batch: bounds the time one command holds the server. */
	public static final int MAX_BATCH = 10_000;

	/**
	 * Validates the options.
	 * @throws InvalidSpecException naming the component and the reason
	 */
	public DeleteOptions {
		Objects.requireNonNull(pause, "pause must not be null");
		if (batchSize < 1 || batchSize > MAX_BATCH) {
			throw new InvalidSpecException("batchSize", "must be from 1 to " + MAX_BATCH + ", was " + batchSize);
		}
		if (pause.isNegative()) {
			throw new InvalidSpecException("pause", "must not be negative, was " + pause);
		}
		if (listLimit < 0) {
			throw new InvalidSpecException("listLimit", "must not be negative, was " + listLimit);
		}
	}

	/** @return batches of 500, no pause, for real */
	public static DeleteOptions defaults() {
		return new DeleteOptions(500, Duration.ZERO, false, 1000);
	}

	/**
	 * @param pause a pause after each batch
	 * @return a copy with that pause
	 */
	public DeleteOptions withPause(Duration pause) {
		return new DeleteOptions(this.batchSize, pause, this.dryRun, this.listLimit);
	}

	/**
	 * @param batchSize elements or keys per command
	 * @return a copy with that batch
	 */
	public DeleteOptions withBatchSize(int batchSize) {
		return new DeleteOptions(batchSize, this.pause, this.dryRun, this.listLimit);
	}

	/** @return a copy that only reports */
	public DeleteOptions asDryRun() {
		return new DeleteOptions(this.batchSize, this.pause, true, this.listLimit);
	}

}
