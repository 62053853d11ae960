package io.rediskit.lock;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * An independent checker of a read-write lock: each holder notes when it entered and left its critical section
 * (on one JVM's monotonic clock), whether it read or wrote, and its fencing token; afterwards no write may
 * overlap any other hold, and each writer's token must be above the token of every hold that ended before it
 * began. Reads may overlap each other. It knows nothing of the lock.
 */
final class SharedHoldLog {

	private final ConcurrentLinkedQueue<Hold> holds = new ConcurrentLinkedQueue<>();

	static long now() {
		return System.nanoTime();
	}

	void read(long enteredNanos, long leftNanos, long token) {
		this.holds.add(new Hold(false, enteredNanos, leftNanos, token));
	}

	void write(long enteredNanos, long leftNanos, long token) {
		this.holds.add(new Hold(true, enteredNanos, leftNanos, token));
	}

	int writes() {
		return (int) this.holds.stream().filter(Hold::write).count();
	}

	int reads() {
		return (int) this.holds.stream().filter((hold) -> !hold.write()).count();
	}

	/** @return whether two reads overlapped: the readers really shared the lock */
	boolean readsOverlapped() {
		List<Hold> reads = new ArrayList<>(this.holds.stream().filter((hold) -> !hold.write()).toList());
		reads.sort(Comparator.comparingLong(Hold::entered));
		long latestEnd = Long.MIN_VALUE;
		for (Hold read : reads) {
			if (latestEnd != Long.MIN_VALUE && read.entered() < latestEnd) {
				return true;
			}
			latestEnd = Math.max(latestEnd, read.left());
		}
		return false;
	}

	/** @return every write beside another hold and every writer token not above an earlier hold's */
	List<String> violations() {
		List<Hold> sorted = new ArrayList<>(this.holds);
		sorted.sort(Comparator.comparingLong(Hold::entered));
		List<String> violations = new ArrayList<>();
		for (int i = 0; i < sorted.size(); i++) {
			Hold hold = sorted.get(i);
			if (!hold.write()) {
				continue;
			}
			for (int j = 0; j < sorted.size(); j++) {
				Hold other = sorted.get(j);
				if (i == j) {
					continue;
				}
				if (other.entered() <= hold.left() && hold.entered() <= other.left()) {
					violations.add("write (token " + hold.token() + ") overlapped " + (other.write() ? "write" : "read")
							+ " (token " + other.token() + ")");
				}
				else if (other.left() < hold.entered() && other.token() >= hold.token()) {
					violations.add("write has token " + hold.token() + ", not above the earlier hold's " + other.token());
				}
			}
		}
		return violations;
	}

	private record Hold(boolean write, long entered, long left, long token) {
	}

}
