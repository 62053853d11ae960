package io.rediskit.keys;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The keys a deduplicating scan has returned, kept compact: each key's bytes copied once into large shared
 * arrays (a 4-byte length, then the bytes), and an open-addressing table of positions and 32-bit hashes. Exact: a
 * key counts as seen only when its bytes equal a stored key's, never on a hash alone, so no key is dropped for
 * a collision. Why not a {@code HashSet}: a set of a million keys held a million small objects (a wrapper, its
 * array, a node) that every garbage collection copied while the scan ran; here they are a few large arrays,
 * about 24 bytes per key besides its bytes. Not thread-safe.
 */
final class SeenKeys {

	private static final int CHUNK = 1 << 20;

	private static final int LENGTH_BYTES = 4;

	private final List<byte[]> chunks = new ArrayList<>();

	private byte[] current = new byte[0];

	private int used;

	/** Per slot, 1 + the key's chunk (high 32 bits) and offset (low 32 bits); 0 is a free slot. */
	private long[] positions = new long[1024];

	private int[] hashes = new int[1024];

	private int size;

	/**
	 * @param key a key's bytes
	 * @return {@code true} if the key was not seen before (it is now), {@code false} if it was
	 */
	boolean add(byte[] key) {
		int hash = hash(key);
		int mask = this.positions.length - 1;
		int slot = hash & mask;
		while (this.positions[slot] != 0) {
			if (this.hashes[slot] == hash && sameKey(this.positions[slot] - 1, key)) {
				return false;
			}
			slot = (slot + 1) & mask;
		}
		this.positions[slot] = store(key) + 1;
		this.hashes[slot] = hash;
		if (++this.size > this.positions.length / 2) {
			grow();
		}
		return true;
	}

	/** @return how many distinct keys were added */
	int size() {
		return this.size;
	}

	private long store(byte[] key) {
		int needed = LENGTH_BYTES + key.length;
		if (this.current.length - this.used < needed) {
			// A key longer than a chunk gets a chunk of its own size.
			this.current = new byte[Math.max(CHUNK, needed)];
			this.chunks.add(this.current);
			this.used = 0;
		}
		long position = ((long) (this.chunks.size() - 1) << 32) | this.used;
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

	private boolean sameKey(long position, byte[] key) {
		byte[] chunk = this.chunks.get((int) (position >>> 32));
		int at = (int) position;
		int length = ((chunk[at] & 0xff) << 24) | ((chunk[at + 1] & 0xff) << 16) | ((chunk[at + 2] & 0xff) << 8)
				| (chunk[at + 3] & 0xff);
		return length == key.length
				&& Arrays.equals(chunk, at + LENGTH_BYTES, at + LENGTH_BYTES + length, key, 0, key.length);
	}

	private void grow() {
		long[] oldPositions = this.positions;
		int[] oldHashes = this.hashes;
		this.positions = new long[oldPositions.length * 2];
		this.hashes = new int[oldHashes.length * 2];
		int mask = this.positions.length - 1;
		for (int i = 0; i < oldPositions.length; i++) {
			if (oldPositions[i] != 0) {
				int slot = oldHashes[i] & mask;
				while (this.positions[slot] != 0) {
					slot = (slot + 1) & mask;
				}
				this.positions[slot] = oldPositions[i];
				this.hashes[slot] = oldHashes[i];
			}
		}
	}

	/** The bytes' hash, its bits mixed so that keys differing only at their end (user:1, user:2) spread. */
	private static int hash(byte[] key) {
		int h = Arrays.hashCode(key);
		h ^= h >>> 16;
		h *= 0x85ebca6b;
		h ^= h >>> 13;
		h *= 0xc2b2ae35;
		return h ^ (h >>> 16);
	}

}
