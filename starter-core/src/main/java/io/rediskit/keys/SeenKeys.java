package io.rediskit.keys;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The keys a deduplicating scan has returned, kept compact: each key's bytes copied once into large shared
 * arrays (a 4-byte length, then the bytes), and an open-addressing table of one {@code long} per slot holding a
 * 28-bit fingerprint of the key's 64-bit hash and where its bytes are. Exact: a key counts as seen only when its
 * bytes equal a stored key's, compared whenever the fingerprints match, so no key is dropped for a collision.
 * <p>
 * Why this shape: the table is read at a random place for every key, and a table of a million keys is far larger
 * than the processor's caches, so each read waits for memory. One slot per key in one array is one such wait
 * (a table of positions and a table of hashes were two), the stored bytes are read only when the fingerprints
 * match (about once in 2^28 for a key not seen), and {@link #retainNew(List)} reads the slots of a whole page
 * before it inserts, so the processor waits for those reads together rather than one after another. A
 * {@code HashSet} of a million keys held a million small objects that every garbage collection copied; here they
 * are a few large arrays, about 16 bytes of table per key besides its bytes. The hash is seeded per instance, so
 * key names cannot be chosen to collide. Not thread-safe.
 */
final class SeenKeys {

	private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

	private static final int OFFSET_BITS = 20;

	private static final int CHUNK = 1 << OFFSET_BITS;

	private static final int CHUNK_INDEX_BITS = 16;

	private static final int FINGERPRINT_SHIFT = OFFSET_BITS + CHUNK_INDEX_BITS;

	private static final int LENGTH_BYTES = 4;

	private static final int GROW_GROUP = 256;

	private final long seed;

	/** Which fingerprint bits count: all of them, or fewer in tests that need fingerprints to collide. */
	private final long fingerprintMask;

	private final List<byte[]> chunks = new ArrayList<>();

	/** Where the stored keys end in each chunk but the last (the rest of a chunk is unused). */
	private final List<Integer> chunkEnds = new ArrayList<>();

	private byte[] current = new byte[0];

	private int used;

	/** Per slot: fingerprint (high 28 bits), chunk (16 bits), offset in the chunk (low 20 bits); 0 is free. */
	private long[] slots = new long[1024];

	private int size;

	/** Sums what the read-ahead of a page's slots read, so that the compiler keeps those reads. */
	private long touched;

	SeenKeys() {
		this(ThreadLocalRandom.current().nextLong(), -1L);
	}

	/**
	 * @param seed the hash's seed
	 * @param fingerprintMask the fingerprint bits compared; 0 makes every fingerprint equal (tests)
	 */
	SeenKeys(long seed, long fingerprintMask) {
		this.seed = seed;
		this.fingerprintMask = fingerprintMask;
	}

	/**
	 * @param key a key's bytes
	 * @return {@code true} if the key was not seen before (it is now), {@code false} if it was
	 */
	boolean add(byte[] key) {
		return add(key, hash(key, 0, key.length, this.seed));
	}

	/**
	 * The keys of a page not seen before, in their order; they are now seen. A key twice in the page is kept once.
	 * @param page keys as a scan returned them
	 * @return the new ones
	 */
	List<byte[]> retainNew(List<byte[]> page) {
		int n = page.size();
		long[] hashes = new long[n];
		long[] table = this.slots;
		int mask = table.length - 1;
		long sum = 0;
		for (int i = 0; i < n; i++) {
			byte[] key = page.get(i);
			hashes[i] = hash(key, 0, key.length, this.seed);
			// Independent reads, issued together: the processor overlaps their waits for memory.
			sum += table[(int) hashes[i] & mask];
		}
		this.touched += sum;
		List<byte[]> fresh = new ArrayList<>(n);
		for (int i = 0; i < n; i++) {
			byte[] key = page.get(i);
			if (add(key, hashes[i])) {
				fresh.add(key);
			}
		}
		return fresh;
	}

	/** @return how many distinct keys were added */
	int size() {
		return this.size;
	}

	private boolean add(byte[] key, long hash) {
		long fingerprint = fingerprint(hash);
		long[] table = this.slots;
		int mask = table.length - 1;
		int slot = (int) hash & mask;
		long word;
		while ((word = table[slot]) != 0) {
			if ((word >>> FINGERPRINT_SHIFT) == fingerprint && sameKey(word, key)) {
				return false;
			}
			slot = (slot + 1) & mask;
		}
		table[slot] = (fingerprint << FINGERPRINT_SHIFT) | store(key);
		if (++this.size > table.length / 2) {
			grow();
		}
		return true;
	}

	/** The hash's top 28 bits that count, never 0, so that no stored key's slot reads as free. */
	private long fingerprint(long hash) {
		long fingerprint = (hash >>> FINGERPRINT_SHIFT) & this.fingerprintMask;
		return (fingerprint != 0) ? fingerprint : 1;
	}

	/** @return where the key's bytes now are: chunk index (16 bits), then offset (20 bits) */
	private long store(byte[] key) {
		int needed = LENGTH_BYTES + key.length;
		if (this.current.length - this.used < needed) {
			if (this.chunks.size() == 1 << CHUNK_INDEX_BITS) {
				throw new IllegalStateException("A deduplicating key scan keeps at most 64 GB of key names; scan "
						+ "with withDedupe(false) or a narrower pattern");
			}
			if (!this.chunks.isEmpty()) {
				this.chunkEnds.add(this.used);
			}
			// A key longer than a chunk gets a chunk of its own size (at offset 0, so the offset always fits).
			this.current = new byte[Math.max(CHUNK, needed)];
			this.chunks.add(this.current);
			this.used = 0;
		}
		long position = ((long) (this.chunks.size() - 1) << OFFSET_BITS) | this.used;
		byte[] chunk = this.current;
		int at = this.used;
		chunk[at] = (byte) (key.length >>> 24);
		chunk[at + 1] = (byte) (key.length >>> 16);
		chunk[at + 2] = (byte) (key.length >>> 8);
		chunk[at + 3] = (byte) key.length;
		System.arraycopy(key, 0, chunk, at + LENGTH_BYTES, key.length);
		this.used += needed;
		return position;
	}

	private boolean sameKey(long word, byte[] key) {
		byte[] chunk = this.chunks.get((int) (word >>> OFFSET_BITS) & ((1 << CHUNK_INDEX_BITS) - 1));
		int at = (int) word & (CHUNK - 1);
		int length = length(chunk, at);
		return length == key.length
				&& Arrays.equals(chunk, at + LENGTH_BYTES, at + LENGTH_BYTES + length, key, 0, key.length);
	}

	/**
	 * Doubles the table, placing every stored key again from its bytes, read chunk after chunk in the order
	 * they were stored (the slot comes from the hash, which the table does not keep whole). Keys are placed
	 * {@value #GROW_GROUP} at a time, their slots read together first, as in {@link #retainNew(List)}.
	 */
	private void grow() {
		long[] table = new long[this.slots.length * 2];
		int mask = table.length - 1;
		long[] hashes = new long[GROW_GROUP];
		long[] positions = new long[GROW_GROUP];
		int pending = 0;
		long sum = 0;
		for (int c = 0; c < this.chunks.size(); c++) {
			byte[] chunk = this.chunks.get(c);
			int end = (c == this.chunks.size() - 1) ? this.used : this.chunkEnds.get(c);
			int at = 0;
			while (at < end) {
				int length = length(chunk, at);
				long hash = hash(chunk, at + LENGTH_BYTES, length, this.seed);
				hashes[pending] = hash;
				positions[pending] = ((long) c << OFFSET_BITS) | at;
				sum += table[(int) hash & mask];
				if (++pending == GROW_GROUP) {
					place(table, hashes, positions, pending);
					pending = 0;
				}
				at += LENGTH_BYTES + length;
			}
		}
		place(table, hashes, positions, pending);
		this.touched += sum;
		this.slots = table;
	}

	private void place(long[] table, long[] hashes, long[] positions, int count) {
		int mask = table.length - 1;
		for (int i = 0; i < count; i++) {
			int slot = (int) hashes[i] & mask;
			while (table[slot] != 0) {
				slot = (slot + 1) & mask;
			}
			table[slot] = (fingerprint(hashes[i]) << FINGERPRINT_SHIFT) | positions[i];
		}
	}

	private static int length(byte[] chunk, int at) {
		return ((chunk[at] & 0xff) << 24) | ((chunk[at + 1] & 0xff) << 16) | ((chunk[at + 2] & 0xff) << 8)
				| (chunk[at + 3] & 0xff);
	}

	/**
	 * A 64-bit hash of the bytes, eight at a time: each word multiplied and rotated into the state, the last
	 * bytes as one word, the length in the seed (so trailing zero bytes count), then a final mix so that keys
	 * differing only at their end ({@code user:1}, {@code user:2}) spread over the table.
	 */
	static long hash(byte[] bytes, int from, int length, long seed) {
		long h = seed ^ (length * 0x9E3779B97F4A7C15L);
		int end = from + length;
		int i = from;
		for (; i + Long.BYTES <= end; i += Long.BYTES) {
			long word = (long) LONGS.get(bytes, i);
			h = Long.rotateLeft(h ^ (word * 0x87C37B91114253D5L), 31) * 0x4CF5AD432745937FL;
		}
		long tail = 0;
		for (int j = end - 1; j >= i; j--) {
			tail = (tail << 8) | (bytes[j] & 0xff);
		}
		h ^= tail * 0x87C37B91114253D5L;
		h ^= h >>> 33;
		h *= 0xFF51AFD7ED558CCDL;
		h ^= h >>> 33;
		h *= 0xC4CEB9FE1A85EC53L;
		return h ^ (h >>> 33);
	}

}
