package io.rediskit.benchmarks.bloom;

/**
 * The Bloom floors' item hash: a 64-bit mix of {@link String#hashCode()}, whose halves give an item's bit positions
 * by double hashing. Cheaper than redis-kit's 128-bit MurmurHash3 on purpose: the floor leaves out client work.
 */
final class FloorHash {

	private FloorHash() {
	}

	/**
	 * @param item the item
	 * @return its 64-bit hash
	 */
	static long of(String item) {
		long z = item.hashCode() * 0x9E3779B97F4A7C15L;
		z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
		z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
		return z ^ (z >>> 31);
	}

	/**
	 * @param hash an item's {@link #of(String) hash}
	 * @param i which of its positions
	 * @param bits the size of the bit array
	 * @return the {@code i}-th position, in {@code [0, bits)}
	 */
	static long position(long hash, int i, long bits) {
		return Math.floorMod((hash >>> 32) + i * (hash & 0xffffffffL), bits);
	}

}
