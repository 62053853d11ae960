package io.rediskit.keys;

import java.util.Objects;

import io.rediskit.support.InvalidSpecException;

/**
 * What a big-key report covers.
 *
 * @param scan the keys looked at, and the pace
 * @param top how many keys each ranking keeps, from 1 to 10 000
 * @param samples the {@code SAMPLES} of {@code MEMORY USAGE}: nested values sampled per collection, 0 for all
 * (exact, and as slow as the collection is big)
 * @param prefixDelimiter the character that ends a key's prefix for the totals per prefix, such as {@code :}
 */
public record BigKeyOptions(KeyScanOptions scan, int top, int samples, char prefixDelimiter) {

	/**
	 * Validates the options.
	 * @throws InvalidSpecException naming the component and the reason
	 */
	public BigKeyOptions {
		Objects.requireNonNull(scan, "scan must not be null");
		if (top < 1 || top > 10_000) {
			throw new InvalidSpecException("top", "must be from 1 to 10000, was " + top);
		}
		if (samples < 0) {
			throw new InvalidSpecException("samples", "must not be negative, was " + samples);
		}
	}

	/**
	 * @param scan the keys looked at
	 * @return a report of the top 10, {@code MEMORY USAGE} sampling 5 values (Redis's default), prefixes up to
	 * the first {@code :}
	 */
	public static BigKeyOptions of(KeyScanOptions scan) {
		return new BigKeyOptions(scan, 10, 5, ':');
	}

}
