package io.rediskit.bloom;

import java.util.Locale;

/**
 * The layers of a growing filter, all derived from its spec: layer {@code i} holds {@code n f^i} items at a rate of
 * {@code p (1 - r) r^i}, sized by the standard formulas, and an item's bits in it are {@code h1 + j h2} modulo its
 * bits, from the item's 128-bit hash ({@link BloomHashing}). The layers are strings of their bits alone; the sizing
 * lives in the filter's record, written with its first layer.
 */
final class GrowthLayout {

	private final BloomFilterSpec spec;

	private final BloomGrowth growth;

	private final long[] capacity;

	private final long[] bits;

	private final int[] hashes;

	private final double[] rate;

	private final String sizing;

	GrowthLayout(BloomFilterSpec spec, BloomGrowth growth) {
		this.spec = spec;
		this.growth = growth;
		int layers = growth.maxLayers();
		this.capacity = new long[layers];
		this.bits = new long[layers];
		this.hashes = new int[layers];
		this.rate = new double[layers];
		for (int i = 0; i < layers; i++) {
			this.capacity[i] = (long) (spec.expectedInsertions() * Math.pow(growth.factor(), i));
			this.rate[i] = BloomFilterSpec.layerRate(spec.falsePositiveRate(), growth, i);
			this.bits[i] = BloomFilterSpec.bits(this.capacity[i], this.rate[i]);
			this.hashes[i] = (int) Math.max(1, Math.round((double) this.bits[i] / this.capacity[i] * Math.log(2)));
		}
		// What the record stores and every call compares: a filter is read only under the sizing it was built with.
		this.sizing = String.format(Locale.ROOT, "rkg1 n=%d p=%s f=%d r=%s max=%d", spec.expectedInsertions(),
				Double.toString(spec.falsePositiveRate()), growth.factor(), Double.toString(growth.tightening()), layers);
	}

	int maxLayers() {
		return this.growth.maxLayers();
	}

	long capacity(int layer) {
		return this.capacity[layer];
	}

	long bits(int layer) {
		return this.bits[layer];
	}

	int hashes(int layer) {
		return this.hashes[layer];
	}

	double rate(int layer) {
		return this.rate[layer];
	}

	/** @return the items of all layers up to {@code layers}, the most the filter holds with that many */
	long totalCapacity(int layers) {
		long total = 0;
		for (int i = 0; i < layers; i++) {
			total += this.capacity[i];
		}
		return total;
	}

	/** @return the sizing as stored in the record */
	String sizing() {
		return this.sizing;
	}

	/** @return the bit offsets of one item in layers 0 to {@code layers - 1}, per layer in turn */
	int offsetsPerItem(int layers) {
		int total = 0;
		for (int i = 0; i < layers; i++) {
			total += this.hashes[i];
		}
		return total;
	}

	/**
	 * Writes an item's offsets in layers 0 to {@code layers - 1}.
	 * @param hash the item's 128-bit hash
	 * @param layers how many layers
	 * @param into where to write
	 * @param from the index of the first offset in {@code into}
	 */
	void offsets(long[] hash, int layers, long[] into, int from) {
		int at = from;
		for (int layer = 0; layer < layers; layer++) {
			long combined = hash[0];
			for (int i = 0; i < this.hashes[layer]; i++) {
				into[at++] = Long.remainderUnsigned(combined, this.bits[layer]);
				combined += hash[1];
			}
		}
	}

	/** @return the spec it was built from */
	BloomFilterSpec spec() {
		return this.spec;
	}

}
