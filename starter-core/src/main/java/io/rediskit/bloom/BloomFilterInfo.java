package io.rediskit.bloom;

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
 * @param estimatedFalsePositiveRate the rate at the current fill, fill<sup>k</sup>
 */
public record BloomFilterInfo(String name, BloomMode mode, long bits, int hashes, int shards, long expectedInsertions,
		double falsePositiveRate, long approximateItems, double fillRatio, double estimatedFalsePositiveRate) {

	/** @return whether more items went in than the filter is sized for, so its rate is above the configured one */
	public boolean overCapacity() {
		return this.approximateItems > this.expectedInsertions;
	}

}
