package io.rediskit.bloom;

import java.util.function.Consumer;

/**
 * What {@link BloomFilter#check(String)} says of an item: whether the filter saw it, and whether its "never seen"
 * may be trusted. A filter is <em>complete</em> when it holds every item that existed when it was seeded
 * ({@link BloomFilter#seed(Iterable)}): only then does "never seen" mean "does not exist". A filter lost in Redis (a
 * restart without persistence, a {@code FLUSHDB}, a failover that dropped its key, an eviction, its ttl) and created
 * again by a later add is never complete, however many items it holds, until it is seeded again.
 */
public enum BloomAnswer {

	/** The filter might have seen the item: all its bits are set (or, at about the configured rate, by chance). */
	SEEN,

	/** A complete filter never saw the item: it does not exist. */
	NEVER_SEEN,

	/**
	 * The filter never saw the item, but is not complete (lost, recreated, or never seeded): the item may exist.
	 */
	NOT_COMPLETE;

	/**
	 * The answer of one check, telling {@code onIncomplete} when the filter is not complete (so that it is seeded).
	 * @param seen whether all the item's bits were set
	 * @param complete whether the filter was complete when checked
	 * @param filter the filter checked
	 * @param onIncomplete told of a "never seen" that cannot be trusted
	 * @return the answer
	 */
	static BloomAnswer of(boolean seen, boolean complete, BloomFilter filter,
			Consumer<BloomFilter> onIncomplete) {
		if (seen) {
			return SEEN;
		}
		if (complete) {
			return NEVER_SEEN;
		}
		onIncomplete.accept(filter);
		return NOT_COMPLETE;
	}

	/** @return whether the item may exist: anything but {@link #NEVER_SEEN} */
	public boolean mayExist() {
		return this != NEVER_SEEN;
	}

}
