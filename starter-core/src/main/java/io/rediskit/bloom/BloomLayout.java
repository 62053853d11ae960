package io.rediskit.bloom;

/**
 * How a filter's bits are laid out in Redis: {@code shards} strings of {@code shardBits} bits each after a
 * 128-bit header, an item's {@code hashes} positions all in the shard its hash picks.
 * <p>
 * The header (bit 0: i64 total bits, bit 64: u16 hashes, bit 80: u16 shards, bit 96: u32 magic) is written by
 * the script that creates the shard, in the same string as the bits, so a shard is never there without its
 * sizing, and its TTL covers both.
 *
 * @param bits m, the filter's bits over all shards
 * @param hashes k
 * @param shards how many strings
 * @param shardBits bits per string, after the header
 */
record BloomLayout(long bits, int hashes, int shards, long shardBits) {

	/** Bits the header takes at the start of each shard. */
	static final int HEADER_BITS = 128;

	/** "RKB1": redis-kit Bloom filter, hashing scheme 1 ({@link BloomHashing}, double hashing). */
	static final long MAGIC = 0x524B4231L;

	static BloomLayout of(BloomFilterSpec spec, long maxShardBits) {
		long bits = spec.bits();
		int shards = (int) ((bits + maxShardBits - 1) / maxShardBits);
		long shardBits = (bits + shards - 1) / shards;
		return new BloomLayout(bits, spec.hashes(), shards, shardBits);
	}

	/**
	 * The shard an item lives in.
	 * @param hash the item's {@link BloomHashing#hash128 hash}
	 * @return from 0 to {@code shards - 1}
	 */
	int shard(long[] hash) {
		return (this.shards == 1) ? 0
				: (int) Long.remainderUnsigned(BloomHashing.fmix(hash[0] ^ Long.rotateLeft(hash[1], 32)), this.shards);
	}

	/**
	 * Writes an item's bit offsets in its shard's string, header included, by double hashing
	 * (h1 + i h2 mod shardBits).
	 * @param hash the item's hash
	 * @param into where to write
	 * @param from the index of the first offset in {@code into}
	 */
	void offsets(long[] hash, long[] into, int from) {
		long combined = hash[0];
		for (int i = 0; i < this.hashes; i++) {
			into[from + i] = HEADER_BITS + Long.remainderUnsigned(combined, this.shardBits);
			combined += hash[1];
		}
	}

	/** @return a description for messages */
	String describe() {
		return this.bits + " bits, " + this.hashes + " hashes" + ((this.shards > 1) ? ", " + this.shards + " shards" : "");
	}

}
