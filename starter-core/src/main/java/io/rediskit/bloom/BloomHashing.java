package io.rediskit.bloom;

/**
 * The 128-bit hash of an item (MurmurHash3, x64 variant, seed 0), from which every position of the item is
 * derived by double hashing. Fixed for ever: filters stored in Redis depend on it (the header's magic number
 * names the scheme).
 */
final class BloomHashing {

	private static final long C1 = 0x87c37b91114253d5L;

	private static final long C2 = 0x4cf5ad432745937fL;

	private BloomHashing() {
	}

	/**
	 * @param data the item's bytes
	 * @return the two 64-bit halves of the hash
	 */
	static long[] hash128(byte[] data) {
		long h1 = 0;
		long h2 = 0;
		int blocks = data.length / 16;
		for (int i = 0; i < blocks; i++) {
			long k1 = littleEndianLong(data, i * 16);
			long k2 = littleEndianLong(data, i * 16 + 8);
			h1 ^= mixK1(k1);
			h1 = Long.rotateLeft(h1, 27) + h2;
			h1 = h1 * 5 + 0x52dce729;
			h2 ^= mixK2(k2);
			h2 = Long.rotateLeft(h2, 31) + h1;
			h2 = h2 * 5 + 0x38495ab5;
		}
		int tail = blocks * 16;
		long k1 = 0;
		long k2 = 0;
		int remaining = data.length - tail;
		for (int i = remaining - 1; i >= 8; i--) {
			k2 ^= (long) (data[tail + i] & 0xff) << ((i - 8) * 8);
		}
		for (int i = Math.min(remaining, 8) - 1; i >= 0; i--) {
			k1 ^= (long) (data[tail + i] & 0xff) << (i * 8);
		}
		if (remaining > 8) {
			h2 ^= mixK2(k2);
		}
		if (remaining > 0) {
			h1 ^= mixK1(k1);
		}
		h1 ^= data.length;
		h2 ^= data.length;
		h1 += h2;
		h2 += h1;
		h1 = fmix(h1);
		h2 = fmix(h2);
		h1 += h2;
		h2 += h1;
		return new long[] { h1, h2 };
	}

	/** A 64-bit finaliser, also used to pick an item's shard from its hash independently of its positions. */
	static long fmix(long value) {
		long k = value;
		k ^= k >>> 33;
		k *= 0xff51afd7ed558ccdL;
		k ^= k >>> 33;
		k *= 0xc4ceb9fe1a85ec53L;
		k ^= k >>> 33;
		return k;
	}

	private static long mixK1(long k) {
		return Long.rotateLeft(k * C1, 31) * C2;
	}

	private static long mixK2(long k) {
		return Long.rotateLeft(k * C2, 33) * C1;
	}

	private static long littleEndianLong(byte[] data, int offset) {
		long value = 0;
		for (int i = 7; i >= 0; i--) {
			value = (value << 8) | (data[offset + i] & 0xff);
		}
		return value;
	}

}
