package io.rediskit.bloom;

/**
 * One layer of a growing filter, as {@link BloomFilter#info()} reads it.
 *
 * @param index from 0, the first and smallest layer
 * @param capacity the items it is sized for
 * @param items the items added to it: its capacity for every layer but the newest
 * @param bits its bits
 * @param hashes its hash functions
 * @param falsePositiveRate the rate it is sized for at its capacity
 * @param fillRatio bits set / bits
 */
public record BloomLayerInfo(int index, long capacity, long items, long bits, int hashes, double falsePositiveRate,
		double fillRatio) {

}
