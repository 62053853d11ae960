package io.rediskit.autoconfigure.reactive;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * An independent check of mutual exclusion: holders write {@code enter} when their critical section starts and
 * {@code exit} when it ends, into one shared log whose order is the order the writes happened in; the log is
 * sound when every {@code enter} is followed by the {@code exit} of the same holder before anyone else enters.
 */
public final class OverlapChecker {

	private final Queue<String> log = new ConcurrentLinkedQueue<>();

	/** @param holder who enters the critical section */
	public void enter(String holder) {
		this.log.add("enter " + holder);
	}

	/** @param holder who leaves the critical section */
	public void exit(String holder) {
		this.log.add("exit " + holder);
	}

	/** @return how many critical sections were completed */
	public int completed() {
		return (int) this.log.stream().filter((entry) -> entry.startsWith("exit ")).count();
	}

	/** @return the problems found, empty when no two holders overlapped */
	public List<String> problems() {
		return problems(List.copyOf(this.log));
	}

	/**
	 * @param log entries {@code enter <holder>} and {@code exit <holder>} in the order they happened
	 * @return the problems found, empty when no two holders overlapped
	 */
	static List<String> problems(List<String> log) {
		List<String> problems = new ArrayList<>();
		String inside = null;
		for (int i = 0; i < log.size(); i++) {
			String entry = log.get(i);
			if (entry.startsWith("enter ")) {
				String holder = entry.substring(6);
				if (inside != null) {
					problems.add("entry " + i + ": " + holder + " entered while " + inside + " was inside");
				}
				inside = holder;
			}
			else {
				String holder = entry.substring(5);
				if (!holder.equals(inside)) {
					problems.add("entry " + i + ": " + holder + " left while " + inside + " was inside");
				}
				inside = null;
			}
		}
		if (inside != null) {
			problems.add(inside + " never left");
		}
		return problems;
	}

}
