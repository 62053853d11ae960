package io.rediskit.id;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The independent checker of the id tests: given the ids each source (a thread, a JVM) saw, in the order it got
 * them, it finds ids handed out twice and sources whose ids did not increase. It knows nothing of blocks or
 * Redis; {@code IdCheckerTests} shows it catches both faults.
 */
final class IdChecker {

	private IdChecker() {
	}

	/**
	 * @param sources the ids of each source, in the order the source got them
	 * @return every id seen more than once (once per extra sighting), sorted
	 */
	static List<Long> duplicates(List<long[]> sources) {
		int total = sources.stream().mapToInt((ids) -> ids.length).sum();
		long[] all = new long[total];
		int at = 0;
		for (long[] ids : sources) {
			System.arraycopy(ids, 0, all, at, ids.length);
			at += ids.length;
		}
		Arrays.sort(all);
		List<Long> duplicates = new ArrayList<>();
		for (int i = 1; i < all.length; i++) {
			if (all[i] == all[i - 1]) {
				duplicates.add(all[i]);
			}
		}
		return duplicates;
	}

	/**
	 * @param sources the ids of each source, in order
	 * @return a description of each place where a source's ids did not increase
	 */
	static List<String> notIncreasing(List<long[]> sources) {
		List<String> faults = new ArrayList<>();
		for (int s = 0; s < sources.size(); s++) {
			long[] ids = sources.get(s);
			for (int i = 1; i < ids.length; i++) {
				if (ids[i] <= ids[i - 1]) {
					faults.add("source " + s + " got " + ids[i] + " after " + ids[i - 1]);
				}
			}
		}
		return faults;
	}

}
