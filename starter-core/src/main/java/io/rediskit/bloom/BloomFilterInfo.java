package io.rediskit.bloom;

import java.util.List;

/**
 * The state of a filter, as {@link BloomFilter#info()} reads it from Redis.
 *
 * @param name the filter's name
 * @param mode where its bits live: {@link BloomMode#BITMAP} or {@link BloomMode#NATIVE}
 * @param bits m, over all shards
 * @param hashes k
 * @param shards how many Redis strings hold the bits (1 up to 2<sup>32</sup> bits)
 * @param expectedInsertions n, what it is sized for
 * @param falsePositiveRate the configured rate at n items
 * @param approximateItems items inserted: estimated from the bits set, -(m/k) ln(1 - X/m) (Swamidass and Baldi);
 * for native filters the count RedisBloom keeps
 * @param fillRatio bits set / m; for native filters estimated from the item count
 * @param estimatedFalsePositiveRate the rate at the current fill, fill<sup>k</sup>; for a growing filter
 * 1 - the product over its layers of (1 - fill<sup>k</sup>)
 * @param layers a growing filter's layers, oldest first; empty for a filter that does not grow. For a growing
 * filter, {@code bits} are those of all its layers, {@code shards} its layers, {@code hashes} and {@code fillRatio}
 * the newest layer's, and {@code approximateItems} the count it keeps of new items added
 */
public record BloomFilterInfo(String name, BloomMode mode, long bits, int hashes, int shards, long expectedInsertions,
		double falsePositiveRate, long approximateItems, double fillRatio, double estimatedFalsePositiveRate,
		List<BloomLayerInfo> layers) {

	/**
	 * The state of a filter that does not grow.
	 * @param name the filter's name
	 * @param mode where its bits live
	 * @param bits m
	 * @param hashes k
	 * @param shards how many strings
	 * @param expectedInsertions n
	 * @param falsePositiveRate the configured rate
	 * @param approximateItems items inserted, estimated
	 * @param fillRatio bits set / m
	 * @param estimatedFalsePositiveRate the rate at the current fill
	 */
	public BloomFilterInfo(String name, BloomMode mode, long bits, int hashes, int shards, long expectedInsertions,
			double falsePositiveRate, long approximateItems, double fillRatio, double estimatedFalsePositiveRate) {
		this(name, mode, bits, hashes, shards, expectedInsertions, falsePositiveRate, approximateItems, fillRatio,
				estimatedFalsePositiveRate, List.of());
	}

	/**
	 * Copies the layers.
	 */
	public BloomFilterInfo {
		layers = List.copyOf(layers);
	}

	/**
	 * @return whether its false-positive rate is above the configured one: more items went in than a filter that
	 * does not grow is sized for, or than a growing filter's last layer holds
	 */
	public boolean overCapacity() {
		return this.layers.isEmpty() ? this.approximateItems > this.expectedInsertions
				: this.estimatedFalsePositiveRate > this.falsePositiveRate;
	}

}
