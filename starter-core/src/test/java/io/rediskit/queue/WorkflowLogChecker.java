package io.rediskit.queue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.rediskit.queue.DeliveryLogChecker.Log;

/**
 * The independent checker of a flows-and-batches run ({@link QueueWorker}'s {@code workflow} logs): reads only what
 * the test enqueued and the consumers' logs, never the queue's state. Every message but the planned failures goes
 * through {@link DeliveryLogChecker} (each acknowledged, none delivered again after an applied ack: so a parent
 * runs once and a callback is enqueued once, since a second enqueue of its fixed id would be a delivery after its
 * ack); the callbacks expected are exactly those of the batches' outcomes (any other is a delivery of an id never
 * enqueued). Besides, per flow: the parent's first delivery started after the last ack asked for by each child (on
 * the machine's monotonic clock, shared by the worker JVMs; an ack refused as stale does not count), and every
 * reading of its children saw all of them succeeded with their results.
 */
final class WorkflowLogChecker {

	private WorkflowLogChecker() {
	}

	/**
	 * One flow as enqueued.
	 * @param parent the parent's id
	 * @param children the children's ids
	 * @param sum the sum of the children's results
	 */
	record Flow(String parent, List<String> children, long sum) {
	}

	/**
	 * @param flows the flows
	 * @param acked every id expected to be acknowledged: members that do not fail, children, parents, callbacks
	 * @param failing the members planned to fail
	 * @param logs the logs
	 * @return what broke a rule; empty when the run was correct
	 */
	static List<String> check(List<Flow> flows, Set<String> acked, Set<String> failing, List<Log> logs) {
		List<String> violations = new ArrayList<>();
		List<Log> deliveryLogs = new ArrayList<>();
		Map<String, Long> firstDelivery = new HashMap<>();
		Map<String, Long> lastAsk = new HashMap<>();
		Map<String, List<String>> readings = new HashMap<>();
		Set<String> failed = new HashSet<>();
		Set<String> deliveredToKilled = new HashSet<>();
		for (Log log : logs) {
			List<String> kept = new ArrayList<>();
			Map<String, Long> asked = new HashMap<>();
			for (int i = 0; i < log.lines().size(); i++) {
				String line = log.lines().get(i);
				String[] parts = line.split(" ");
				boolean last = log.killed() && i == log.lines().size() - 1;
				if (parts.length < 2) {
					continue;
				}
				String id = parts[1];
				try {
					switch (parts[0]) {
						case "D" -> {
							if (log.killed()) {
								deliveredToKilled.add(id);
							}
							if (parts.length == 4) {
								firstDelivery.merge(id, Long.parseLong(parts[3]), Math::min);
							}
						}
						case "a" -> asked.put(id, Long.parseLong(parts[2]));
						case "S" -> asked.remove(id);
						case "X" -> failed.add(id);
						case "P" -> readings.computeIfAbsent(id, (k) -> new ArrayList<>()).add(parts[2] + " " + parts[3]);
						default -> {
						}
					}
				}
				catch (RuntimeException ex) {
					// The last line of a killed consumer may be torn; anywhere else it is a fault.
					if (!last) {
						violations.add("malformed line '" + line + "'");
					}
					continue;
				}
				if (!failing.contains(id) && "DaASF".contains(parts[0])) {
					kept.add(line);
				}
			}
			asked.forEach((id, nanos) -> lastAsk.merge(id, nanos, Math::max));
			deliveryLogs.add(new Log(kept, log.killed()));
		}
		violations.addAll(DeliveryLogChecker.check(acked, deliveryLogs).violations());
		for (String id : failing) {
			// A consumer killed between the dead-letter and its log line leaves no X; the caller counts the dead
			// letters in Redis for those.
			if (!failed.contains(id) && !deliveredToKilled.contains(id)) {
				violations.add("planned failure " + id + " was never dead-lettered");
			}
		}
		for (Flow flow : flows) {
			Long parentStart = firstDelivery.get(flow.parent());
			if (parentStart == null) {
				continue;
			}
			for (String child : flow.children()) {
				Long ask = lastAsk.get(child);
				if (ask == null) {
					violations.add("parent " + flow.parent() + " ran, child " + child + " never asked for its ack");
				}
				else if (ask >= parentStart) {
					violations.add("parent " + flow.parent() + " started before child " + child + " finished");
				}
			}
			List<String> seen = readings.getOrDefault(flow.parent(), List.of());
			if (seen.isEmpty()) {
				violations.add("parent " + flow.parent() + " never read its children");
			}
			for (String reading : seen) {
				if (!reading.equals(flow.children().size() + " " + flow.sum())) {
					violations.add("parent " + flow.parent() + " read " + reading + " of its children");
				}
			}
		}
		return violations;
	}

}
