package io.rediskit.bloom;

/**
 * What a {@link BloomFilter} call did, for {@link BloomFilterListener}s and metrics.
 */
public enum BloomOperation {

	/** Items were added; a hit is an item that was new. */
	ADD,

	/** Items were looked up; a hit is an item that might be in the filter. */
	CONTAINS;

	/** @return the metric tag value: {@code add} or {@code contains} */
	public String tag() {
		return name().toLowerCase(java.util.Locale.ROOT);
	}

}
