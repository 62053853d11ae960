package io.rediskit.lock;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * An independent checker of mutual exclusion: each holder notes when it entered and left its critical section
 * (on one JVM's monotonic clock) and the fencing token it held; afterwards, with every hold sorted by entry,
 * each must start after the one before ended and carry a higher token. It knows nothing of the lock, so a lock
 * that believes itself held twice cannot fool it.
 */
final class HoldLog {

	private final ConcurrentLinkedQueue<Hold> holds = new ConcurrentLinkedQueue<>();

	/** @return a time to pass to {@link #record}, read as the critical section starts or ends */
	static long now() {
		return System.nanoTime();
	}

	void record(long enteredNanos, long leftNanos, long token) {
		this.holds.add(new Hold(enteredNanos, leftNanos, token));
	}

	int size() {
		return this.holds.size();
	}

	/** @return every overlap and every token that did not increase, empty when the holds were exclusive */
	List<String> violations() {
		List<Hold> sorted = new ArrayList<>(this.holds);
		sorted.sort(Comparator.comparingLong(Hold::entered));
		List<String> violations = new ArrayList<>();
		for (int i = 1; i < sorted.size(); i++) {
			Hold before = sorted.get(i - 1);
			Hold hold = sorted.get(i);
			if (hold.entered() <= before.left()) {
				violations.add("hold " + i + " (token " + hold.token() + ") entered before hold " + (i - 1) + " (token "
						+ before.token() + ") left");
			}
			if (hold.token() <= before.token()) {
				violations.add("hold " + i + " has token " + hold.token() + ", not above " + before.token());
			}
		}
		return violations;
	}

	private record Hold(long entered, long left, long token) {
	}

}
