package io.rediskit.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * An independent checker of a semaphore's bound: each holder notes when it entered and left its critical section,
 * the permits it held and its fencing token; afterwards a sweep over every entry and exit finds the most permits
 * held at once, which must not exceed the total, and the tokens must all differ. Times come from one clock all
 * holders share (a JVM's {@link System#nanoTime()}, or Redis {@code TIME} across JVMs), read after the acquisition
 * returned and before the release started, so each noted interval lies inside the real hold: an excess the sweep
 * finds is real. It knows nothing of the semaphore, so a semaphore that miscounts cannot fool it.
 */
final class PermitLog {

	private final ConcurrentLinkedQueue<Hold> holds = new ConcurrentLinkedQueue<>();

	void record(long entered, long left, int permits, long token) {
		this.holds.add(new Hold(entered, left, permits, token));
	}

	int size() {
		return this.holds.size();
	}

	/** @return the most permits held at one time; an exit at the same time as an entry counts first */
	int maxHeld() {
		List<long[]> events = new ArrayList<>();
		for (Hold hold : this.holds) {
			events.add(new long[] { hold.entered(), hold.permits() });
			events.add(new long[] { hold.left(), -hold.permits() });
		}
		events.sort((a, b) -> (a[0] != b[0]) ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
		int held = 0;
		int max = 0;
		for (long[] event : events) {
			held += (int) event[1];
			max = Math.max(max, held);
		}
		return max;
	}

	/** @return the excess over {@code total} and every repeated token, empty when the bound held */
	List<String> violations(int total) {
		List<String> violations = new ArrayList<>();
		int max = maxHeld();
		if (max > total) {
			violations.add(max + " permits held at once, more than the total " + total);
		}
		long distinct = this.holds.stream().mapToLong(Hold::token).distinct().count();
		if (distinct != this.holds.size()) {
			violations.add((this.holds.size() - distinct) + " fencing tokens handed out twice");
		}
		return violations;
	}

	private record Hold(long entered, long left, int permits, long token) {
	}

}
