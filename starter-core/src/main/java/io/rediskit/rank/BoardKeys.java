package io.rediskit.rank;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Where a read goes, as the read scripts take it: a stored board (its key alone), or a view (its cache key, its
 * sources, how it is computed and for how long it is cached).
 *
 * @param key the board's key, or the view's cache key
 * @param sources the view's sources; empty for a stored board
 * @param computation {@code union} or {@code inter}; unused for a stored board
 * @param cacheTtlMillis how long a computed view is kept
 */
record BoardKeys(byte[] key, List<byte[]> sources, String computation, long cacheTtlMillis) {

	static BoardKeys stored(byte[] key) {
		return new BoardKeys(key, List.of(), "union", 1);
	}

	/** @return the number of keys the read scripts get */
	int numKeys() {
		return 1 + this.sources.size();
	}

	/**
	 * @param args the read's own arguments, after the view's
	 * @return the keys, the view's arguments, then the read's
	 */
	byte[][] keysAndArgs(byte[]... args) {
		byte[][] all = new byte[numKeys() + 2 + args.length][];
		all[0] = this.key;
		for (int i = 0; i < this.sources.size(); i++) {
			all[i + 1] = this.sources.get(i);
		}
		int next = numKeys();
		all[next++] = this.computation.getBytes(StandardCharsets.US_ASCII);
		all[next++] = Long.toString(this.cacheTtlMillis).getBytes(StandardCharsets.US_ASCII);
		System.arraycopy(args, 0, all, next, args.length);
		return all;
	}

}
