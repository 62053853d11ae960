package io.rediskit.cache;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The independent checker of the near cache's promise: a read that starts after the invalidation of write
 * {@code n} arrived returns write {@code n} or a later one, never an older value. The writer numbers its writes;
 * the test says which write's invalidation had arrived when a read started ({@code floor}) and what the read
 * returned; the check knows nothing of the cache.
 */
final class StaleReadCheck {

	private final List<String> violations = new CopyOnWriteArrayList<>();

	private final AtomicLong reads = new AtomicLong();

	/**
	 * @param floor the number of the last write whose invalidation had arrived when the read started
	 * @param returned the number of the write the read returned, -1 for none (a miss)
	 */
	void record(long floor, long returned) {
		this.reads.incrementAndGet();
		if (returned < floor) {
			this.violations.add("read " + this.reads.get() + " returned write " + returned + " after the invalidation"
					+ " of write " + floor + " had arrived");
		}
	}

	/** @return the number of the write a value names, as the writer wrote it ({@code "v<n>"}), or -1 */
	static long numberOf(Object value) {
		if (value == null) {
			return -1;
		}
		String text = value.toString();
		return text.startsWith("v") ? Long.parseLong(text.substring(1)) : -1;
	}

	long reads() {
		return this.reads.get();
	}

	List<String> violations() {
		return List.copyOf(this.violations);
	}

}
