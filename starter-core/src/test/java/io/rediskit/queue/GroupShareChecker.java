package io.rediskit.queue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The independent checker of a run with groups: reads only what the handlers recorded (each handling's group and
 * its start and end on the monotonic clock), never the queue's state. Rules: while a group still has messages not
 * started, every sliding window of {@code window} consecutive starts holds at least one of its starts (its share
 * of the deliveries never drops to nothing behind another group's flood); and at no instant do more handlings of
 * one group run than its limit.
 */
final class GroupShareChecker {

	private GroupShareChecker() {
	}

	/**
	 * One handling of a message.
	 * @param group its group
	 * @param id its id
	 * @param startNanos when the handler started ({@link System#nanoTime()})
	 * @param endNanos when it returned
	 */
	record Handling(String group, String id, long startNanos, long endNanos) {
	}

	/**
	 * @param handlings every handling of the run
	 * @param window the sliding window, in consecutive starts
	 * @param limits the most handlings of a group at once, by group (a group not named: no limit)
	 * @return what broke a rule; empty when the run was fair
	 */
	static List<String> check(List<Handling> handlings, int window, Map<String, Integer> limits) {
		List<String> violations = new ArrayList<>();
		List<Handling> byStart = new ArrayList<>(handlings);
		byStart.sort(Comparator.comparingLong(Handling::startNanos));
		Map<String, Integer> lastStart = new HashMap<>();
		for (int i = 0; i < byStart.size(); i++) {
			lastStart.put(byStart.get(i).group(), i);
		}
		for (Map.Entry<String, Integer> group : lastStart.entrySet()) {
			int since = -1;
			for (int i = 0; i <= group.getValue(); i++) {
				if (byStart.get(i).group().equals(group.getKey())) {
					if (i - since > window) {
						violations.add(group.getKey() + " had no start among starts " + (since + 1) + " to " + i
								+ " while it had messages waiting");
					}
					since = i;
				}
			}
		}
		// Ends sort before starts at the same instant: a handling that ended made room for the one that starts.
		List<long[]> events = new ArrayList<>();
		List<String> groups = new ArrayList<>();
		for (Handling handling : handlings) {
			events.add(new long[] { handling.startNanos(), 1, groups.size() });
			events.add(new long[] { handling.endNanos(), 0, groups.size() });
			groups.add(handling.group());
		}
		events.sort(Comparator.<long[]>comparingLong((e) -> e[0]).thenComparingLong((e) -> e[1]));
		Map<String, Integer> running = new HashMap<>();
		for (long[] event : events) {
			String group = groups.get((int) event[2]);
			int now = running.merge(group, (event[1] == 1) ? 1 : -1, Integer::sum);
			Integer limit = limits.get(group);
			if (event[1] == 1 && limit != null && now > limit) {
				violations.add(group + " ran " + now + " at once, over its limit of " + limit);
			}
		}
		return violations;
	}

}
