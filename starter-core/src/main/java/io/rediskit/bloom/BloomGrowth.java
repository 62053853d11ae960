package io.rediskit.bloom;

import io.rediskit.support.InvalidSpecException;

/**
 * How a filter grows past its expected insertions (a scalable Bloom filter, after Almeida, Baquero, Preguiça and
 * Hutchison, 2007): when the newest layer holds as many items as it is sized for, the next item starts a new layer
 * {@code factor} times larger, sized for a false-positive rate {@code tightening} times the previous layer's. The
 * first layer is sized for {@code falsePositiveRate * (1 - tightening)}, so the rates of all the layers, however
 * many, add up to at most the spec's rate: the filter's rate stays below it as it grows.
 *
 * @param factor how many times larger each layer is than the one before, from 1 to 16 (2 is usual)
 * @param tightening the ratio of each layer's false-positive rate to the previous one's, above 0 and below 1:
 * closer to 1 spends fewer bits on the first layer, closer to 0 fewer on the later ones (0.5 is usual; 0.8 to 0.9
 * suits filters that grow a lot)
 * @param maxLayers the most layers, from 1 to 32: an add past the last layer's capacity throws
 * {@link BloomFilterFullException}. Each layer is one Redis string of at most 2<sup>32</sup> bits
 */
public record BloomGrowth(int factor, double tightening, int maxLayers) {

	/** Growth used unless one is given: layers twice as large, half the rate, at most 8 (255 times the sizing). */
	public static final BloomGrowth DEFAULT = new BloomGrowth(2, 0.5, 8);

	/** Most layers a filter may have. */
	public static final int MAX_LAYERS = 32;

	/**
	 * Validates the growth.
	 * @throws InvalidSpecException naming the component ({@code growth.factor} and so on) and the reason
	 */
	public BloomGrowth {
		if (factor < 1 || factor > 16) {
			throw new InvalidSpecException("growth.factor", "must be from 1 to 16, was " + factor);
		}
		if (!(tightening > 0 && tightening < 1)) {
			throw new InvalidSpecException("growth.tightening", "must be above 0 and below 1, such as 0.5, was " + tightening);
		}
		if (maxLayers < 1 || maxLayers > MAX_LAYERS) {
			throw new InvalidSpecException("growth.maxLayers", "must be from 1 to " + MAX_LAYERS + ", was " + maxLayers);
		}
	}

}
