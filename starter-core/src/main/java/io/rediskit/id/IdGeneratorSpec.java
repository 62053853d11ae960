package io.rediskit.id;

import io.rediskit.support.InvalidSpecException;

/**
 * How an id generator takes its numbers: {@code blockSize} at a time per instance.
 *
 * <pre>{@code
 * IdGeneratorSpec spec = IdGeneratorSpec.ofBlockSize(1000);
 * }</pre>
 *
 * @param blockSize how many ids one round trip reserves, from 1 to 1 000 000: larger blocks cost fewer round trips
 * and leave larger gaps when an instance stops
 */
public record IdGeneratorSpec(int blockSize) {

	/** Block size used unless one is given. */
	public static final int DEFAULT_BLOCK_SIZE = 1000;

	/** The largest block size. */
	public static final int MAX_BLOCK_SIZE = 1_000_000;

	/**
	 * Validates the spec.
	 * @throws InvalidSpecException naming the component and the reason
	 */
	public IdGeneratorSpec {
		if (blockSize < 1 || blockSize > MAX_BLOCK_SIZE) {
			throw new InvalidSpecException("blockSize", "must be from 1 to " + MAX_BLOCK_SIZE + ", was " + blockSize);
		}
	}

	/**
	 * @param blockSize how many ids one round trip reserves
	 * @return the spec
	 */
	public static IdGeneratorSpec ofBlockSize(int blockSize) {
		return new IdGeneratorSpec(blockSize);
	}

	/** @return blocks of {@value #DEFAULT_BLOCK_SIZE} */
	public static IdGeneratorSpec defaults() {
		return new IdGeneratorSpec(DEFAULT_BLOCK_SIZE);
	}

}
