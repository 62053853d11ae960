package io.rediskit.queue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The independent checker of a queue run: reads only the ids that were enqueued and the delivery logs the
 * consumers wrote, never the queue's own state. A log is one consumer incarnation's lines, in order:
 * {@code D <id> <delivery count>} as a handler starts, {@code a <id>} as it asks for the ack, {@code A <id>}
 * once the ack was applied, {@code S <id>} when it was refused as stale, {@code F <id>} when it failed (Redis
 * unreachable: it may have been applied, its reply lost). A killed incarnation may end in a torn line, which is ignored.
 * <p>
 * Rules: every enqueued id was delivered and acknowledged (an {@code A}, or, in a killed incarnation, an ack
 * asked for as its last step for that id, or an ack that failed as the id's last delivery); no id was delivered that was not enqueued; no two deliveries of one
 * id carry the same delivery count (a claim applied twice); and an id is delivered again only after a delivery
 * that did not finish: its consumer was killed before the ack was applied, or the ack was refused as stale or
 * failed. A delivery after an applied ack is a violation.
 */
final class DeliveryLogChecker {

	private DeliveryLogChecker() {
	}

	/**
	 * @param lines the incarnation's lines
	 * @param killed whether it was killed (so its last lines may be torn and its unacked deliveries unfinished)
	 */
	record Log(List<String> lines, boolean killed) {
	}

	/**
	 * The outcome.
	 * @param delivered deliveries in all logs
	 * @param redelivered ids delivered more than once, each for a permitted reason
	 * @param violations what broke a rule; empty when the run was correct
	 */
	record Report(long delivered, Set<String> redelivered, List<String> violations) {

		boolean ok() {
			return this.violations.isEmpty();
		}

	}

	static Report check(Collection<String> enqueued, List<Log> logs) {
		Set<String> expected = new HashSet<>(enqueued);
		List<String> violations = new ArrayList<>();
		Map<String, List<Delivery>> deliveries = new HashMap<>();
		long delivered = 0;
		for (int l = 0; l < logs.size(); l++) {
			Log log = logs.get(l);
			Map<String, Delivery> open = new HashMap<>();
			for (int i = 0; i < log.lines().size(); i++) {
				String line = log.lines().get(i);
				String[] parts = line.split(" ");
				boolean last = i == log.lines().size() - 1;
				if (parts.length < 2 || (parts[0].equals("D") && parts.length < 3)) {
					if (!(log.killed() && last)) {
						violations.add("log " + l + ": malformed line '" + line + "'");
					}
					continue;
				}
				String id = parts[1];
				switch (parts[0]) {
					case "D" -> {
						delivered++;
						if (!expected.contains(id)) {
							violations.add("delivered an id never enqueued: " + id);
						}
						Delivery delivery = new Delivery(Integer.parseInt(parts[2]));
						deliveries.computeIfAbsent(id, (k) -> new ArrayList<>()).add(delivery);
						open.put(id, delivery);
					}
					case "a", "A", "S", "F" -> {
						Delivery delivery = open.get(id);
						if (delivery == null) {
							violations.add("log " + l + ": '" + line + "' without a delivery");
							continue;
						}
						switch (parts[0]) {
							case "a" -> delivery.askedAck = true;
							case "A" -> delivery.acked = true;
							case "S" -> delivery.unfinished = true;
							case "F" -> {
								delivery.unfinished = true;
								delivery.ackUnknown = delivery.askedAck;
							}
							default -> throw new IllegalStateException();
						}
					}
					default -> {
						if (!(log.killed() && last)) {
							violations.add("log " + l + ": unknown line '" + line + "'");
						}
					}
				}
			}
			if (log.killed()) {
				for (Delivery delivery : open.values()) {
					if (!delivery.acked) {
						delivery.killed = true;
					}
				}
			}
		}
		Set<String> redelivered = new HashSet<>();
		for (String id : expected) {
			List<Delivery> all = deliveries.get(id);
			if (all == null) {
				violations.add("lost: " + id + " was never delivered");
				continue;
			}
			// An ack that failed in an outage may have been applied all the same (its reply was lost): like an ack
			// asked for by a killed consumer, it settles the message when no later delivery came.
			int last = all.stream().mapToInt((d) -> d.count).max().orElseThrow();
			boolean done = all.stream()
				.anyMatch((d) -> d.acked || (d.killed && d.askedAck) || (d.ackUnknown && d.count == last));
			if (!done) {
				violations.add("lost: " + id + " was never acknowledged");
			}
			Set<Integer> counts = new HashSet<>();
			for (Delivery delivery : all) {
				if (!counts.add(delivery.count)) {
					violations.add(id + " was delivered twice as delivery " + delivery.count + " (a claim applied twice)");
				}
			}
			if (all.size() > 1) {
				redelivered.add(id);
				long acked = all.stream().filter((d) -> d.acked).count();
				if (acked > 1) {
					violations.add(id + " was acknowledged " + acked + " times");
				}
				List<Delivery> byCount = new ArrayList<>(all);
				byCount.sort((x, y) -> Integer.compare(x.count, y.count));
				for (int i = 0; i < byCount.size() - 1; i++) {
					Delivery earlier = byCount.get(i);
					if (earlier.acked || !(earlier.killed || earlier.unfinished)) {
						violations.add(id + " was delivered again after delivery " + earlier.count
								+ (earlier.acked ? ", which was acknowledged" : ", which neither died nor went stale"));
					}
				}
			}
		}
		return new Report(delivered, redelivered, violations);
	}

	private static final class Delivery {

		final int count;

		boolean askedAck;

		boolean acked;

		boolean unfinished;

		/** Its ack failed in an outage: applied or not, the reply cannot say. */
		boolean ackUnknown;

		boolean killed;

		Delivery(int count) {
			this.count = count;
		}

	}

}
