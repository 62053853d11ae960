package io.rediskit.keys;

import java.time.Duration;
import java.util.Objects;

import io.rediskit.support.InvalidSpecException;
import org.jspecify.annotations.Nullable;

/**
 * What a scan looks at and how fast. Immutable; {@code with...} methods return copies.
 *
 * @param pattern a {@code SCAN MATCH} glob; build it from user data with {@link KeyPatterns}
 * @param type only keys of this Redis type ({@code string}, {@code hash}, {@code list}, {@code set},
 * {@code zset}, {@code stream}), or {@code null} for all
 * @param batchSize the {@code COUNT} hint of each {@code SCAN}, from 1 to {@value #MAX_BATCH}
 * @param keysPerSecond the most keys returned per second over the scan, or 0 for no pacing
 * @param pause a pause after each round of {@code SCAN}s, or zero
 * @param dedupe whether keys returned twice (SCAN may, while a node rehashes) are returned once; costs memory
 * for every key seen
 */
public record KeyScanOptions(String pattern, @Nullable String type, int batchSize, long keysPerSecond,
		Duration pause, boolean dedupe) {

	/** Largest {@code COUNT} hint: bounds the time one {@code SCAN} holds the server. */
	public static final int MAX_BATCH = 10_000;

	/**
	 * Validates the options.
	 * @throws InvalidSpecException naming the component and the reason
	 */
	public KeyScanOptions {
		Objects.requireNonNull(pattern, "pattern must not be null");
		Objects.requireNonNull(pause, "pause must not be null");
		if (pattern.isEmpty()) {
			throw new InvalidSpecException("pattern", "must not be empty; use * for every key");
		}
		if (type != null && !type.matches("[a-z]{1,16}")) {
			throw new InvalidSpecException("type", "must be a Redis type such as hash or zset, was '" + type + "'");
		}
		if (batchSize < 1 || batchSize > MAX_BATCH) {
			throw new InvalidSpecException("batchSize", "must be from 1 to " + MAX_BATCH + ", was " + batchSize);
		}
		if (keysPerSecond < 0) {
			throw new InvalidSpecException("keysPerSecond", "must not be negative, was " + keysPerSecond);
		}
		if (pause.isNegative()) {
			throw new InvalidSpecException("pause", "must not be negative, was " + pause);
		}
	}

	/**
	 * @param pattern a {@code SCAN MATCH} glob
	 * @return options for every type, batches of 1000, no pacing, duplicates removed
	 */
	public static KeyScanOptions matching(String pattern) {
		return new KeyScanOptions(pattern, null, 1000, 0, Duration.ZERO, true);
	}

	/**
	 * @param type a Redis type, or {@code null} for all
	 * @return a copy for that type
	 */
	public KeyScanOptions withType(@Nullable String type) {
		return new KeyScanOptions(this.pattern, type, this.batchSize, this.keysPerSecond, this.pause, this.dedupe);
	}

	/**
	 * @param batchSize the {@code COUNT} hint
	 * @return a copy with that hint
	 */
	public KeyScanOptions withBatchSize(int batchSize) {
		return new KeyScanOptions(this.pattern, this.type, batchSize, this.keysPerSecond, this.pause, this.dedupe);
	}

	/**
	 * @param keysPerSecond the most keys per second, 0 for no pacing
	 * @return a copy with that pace
	 */
	public KeyScanOptions withKeysPerSecond(long keysPerSecond) {
		return new KeyScanOptions(this.pattern, this.type, this.batchSize, keysPerSecond, this.pause, this.dedupe);
	}

	/**
	 * @param pause a pause after each round
	 * @return a copy with that pause
	 */
	public KeyScanOptions withPause(Duration pause) {
		return new KeyScanOptions(this.pattern, this.type, this.batchSize, this.keysPerSecond, pause, this.dedupe);
	}

	/**
	 * @param dedupe whether duplicates are removed
	 * @return a copy
	 */
	public KeyScanOptions withDedupe(boolean dedupe) {
		return new KeyScanOptions(this.pattern, this.type, this.batchSize, this.keysPerSecond, this.pause, dedupe);
	}

}
