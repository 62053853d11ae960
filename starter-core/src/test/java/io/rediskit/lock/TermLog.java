package io.rediskit.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * An independent checker of leader election: every grant and revocation, from whichever instance (thread or
 * JVM), in the order this JVM learned of them. It knows nothing of the election, so an election that believes
 * in two leaders cannot fool it. {@link #violations()} lists every term granted twice and every grant whose
 * term is not above every term granted before.
 */
final class TermLog {

	private final List<Entry> entries = new ArrayList<>();

	private final List<Write> writes = new ArrayList<>();

	synchronized void granted(String instance, long term) {
		this.entries.add(new Entry(instance, true, term, "", System.nanoTime()));
		notifyAll();
	}

	synchronized void revoked(String instance, long term, String reason) {
		this.entries.add(new Entry(instance, false, term, reason, System.nanoTime()));
		notifyAll();
	}

	/** Records a leader's fenced write of its term: {@code true} when the resource accepted it. */
	synchronized void wrote(String instance, long term, String accepted) {
		this.writes.add(new Write(instance, term, Boolean.parseBoolean(accepted)));
		notifyAll();
	}

	/** @return every fenced write, in the order this JVM learned of them */
	synchronized List<Write> writes() {
		return List.copyOf(this.writes);
	}

	synchronized List<Entry> entries() {
		return List.copyOf(this.entries);
	}

	/** @return the first entry after {@code from} entries that matches, waiting up to the timeout */
	synchronized Entry await(String what, int from, Predicate<Entry> match, Duration timeout)
			throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			for (int i = from; i < this.entries.size(); i++) {
				if (match.test(this.entries.get(i))) {
					return this.entries.get(i);
				}
			}
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				throw new AssertionError("Timed out after " + timeout + " waiting for " + what + "; saw " + this.entries);
			}
			wait(Math.max(1, left / 1_000_000));
		}
	}

	synchronized int size() {
		return this.entries.size();
	}

	/** @return the leader now by this log: the last grant not revoked since, if any */
	synchronized Optional<Entry> leader() {
		Entry last = null;
		for (Entry entry : this.entries) {
			if (entry.granted()) {
				last = entry;
			}
			else if (last != null && last.term() == entry.term()) {
				last = null;
			}
		}
		return Optional.ofNullable(last);
	}

	/** @return every term granted twice and every grant not above all earlier ones; empty when all is well */
	synchronized List<String> violations() {
		List<String> violations = new ArrayList<>();
		Map<Long, String> holders = new HashMap<>();
		long highest = Long.MIN_VALUE;
		for (Entry entry : this.entries) {
			if (!entry.granted()) {
				continue;
			}
			String before = holders.putIfAbsent(entry.term(), entry.instance());
			if (before != null) {
				violations.add("term " + entry.term() + " granted to " + before + " and again to " + entry.instance());
			}
			if (entry.term() <= highest) {
				violations.add("term " + entry.term() + " granted to " + entry.instance() + " after term " + highest);
			}
			highest = Math.max(highest, entry.term());
		}
		return violations;
	}

	/**
	 * One grant or revocation.
	 * @param instance who
	 * @param granted a grant, else a revocation
	 * @param term the term
	 * @param reason why a revocation happened
	 * @param nanos when this JVM learned of it
	 */
	record Entry(String instance, boolean granted, long term, String reason, long nanos) {
	}

	/**
	 * One fenced write of a leader.
	 * @param instance who wrote
	 * @param term the term it wrote with
	 * @param accepted whether the resource took it
	 */
	record Write(String instance, long term, boolean accepted) {
	}

}
