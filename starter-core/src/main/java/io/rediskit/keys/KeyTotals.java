package io.rediskit.keys;

/**
 * Totals over a group of keys (a type, a prefix).
 *
 * @param keys how many keys
 * @param memoryBytes their summed {@code MEMORY USAGE}
 * @param elements their summed element counts
 */
public record KeyTotals(long keys, long memoryBytes, long elements) {

	KeyTotals plus(KeyInfo info) {
		return new KeyTotals(this.keys + 1, this.memoryBytes + info.memoryBytes(), this.elements + info.elements());
	}

}
