package io.rediskit.leader;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * An independent checker of leader election: every grant and revocation, from whichever instance (thread or
 * JVM), in the order this JVM learned of them, and every fenced write of a leader, in the order the resource's
 * server took them. It knows nothing of the election, so an election that believes in two leaders cannot fool it.
 * {@link #violations()} lists every term granted twice and every grant whose term is not above every term granted
 * before; {@link #writeViolations} every accepted write whose term is not above the one accepted before it and
 * every refused write of an instance that had no reason to be refused.
 * <p>
 * What this JVM learns from other JVMs comes through one pipe each, read by a thread of its own: the order of two
 * lines of one pipe is the order in which that JVM wrote them, but a line of one pipe can be read long after a line
 * another JVM wrote later (a reader thread starved on a busy machine). So a log fed by candidate JVMs
 * ({@link #ofJvms()}) judges the order of grants within each instance only, and the order across instances by the
 * fenced writes, each numbered by the resource's server as it runs it; a log fed by listeners in this JVM
 * ({@link #TermLog()}) judges every grant against every grant before it, since it records them as they happen.
 */
final class TermLog {

	/** Whether the order of entries from different instances is the order in which they happened. */
	private final boolean orderedAcrossInstances;

	private final List<Entry> entries = new ArrayList<>();

	private final List<Write> writes = new ArrayList<>();

	private final List<String> failedWrites = new ArrayList<>();

	/** A log fed by listeners in this JVM, which records every grant as it happens. */
	TermLog() {
		this(true);
	}

	private TermLog(boolean orderedAcrossInstances) {
		this.orderedAcrossInstances = orderedAcrossInstances;
	}

	/** @return a log fed by the output of candidate JVMs, read by one thread per JVM */
	static TermLog ofJvms() {
		return new TermLog(false);
	}

	synchronized void granted(String instance, long term) {
		this.entries.add(new Entry(instance, true, term, "", System.nanoTime()));
		notifyAll();
	}

	synchronized void revoked(String instance, long term, String reason) {
		this.entries.add(new Entry(instance, false, term, reason, System.nanoTime()));
		notifyAll();
	}

	/**
	 * Records a leader's fenced write of its term.
	 * @param accepted whether the resource took it
	 * @param sequence the write's place in the resource's history, numbered by the resource's server
	 */
	synchronized void wrote(String instance, long term, boolean accepted, long sequence) {
		this.writes.add(new Write(instance, term, accepted, sequence));
		notifyAll();
	}

	/**
	 * Records a fenced write whose outcome the leader never learned (the call failed or timed out): it may or may
	 * not have reached the resource, so it is judged neither way.
	 */
	synchronized void writeFailed(String instance, long term) {
		this.failedWrites.add(instance + " term " + term);
	}

	/** @return every fenced write whose outcome is known, in the order the resource's server took them */
	synchronized List<Write> writes() {
		List<Write> ordered = new ArrayList<>(this.writes);
		ordered.sort(Comparator.comparingLong(Write::sequence));
		return ordered;
	}

	/**
	 * Judges the fenced writes in the order the resource's server took them, whatever the order this JVM learned
	 * of them: each accepted term must be above every term accepted before it, and a write may be refused only
	 * if it came from one of {@code mayBeRefused} (a leader paused between its grant and its write, whose
	 * successor may have written first).
	 * @return every accepted term not above the one before and every refusal of another instance, with the
	 * writes in the server's order; empty when all is well
	 */
	synchronized List<String> writeViolations(Set<String> mayBeRefused) {
		List<String> violations = new ArrayList<>();
		Write lastAccepted = null;
		for (Write write : writes()) {
			if (write.accepted()) {
				if (lastAccepted != null && write.term() <= lastAccepted.term()) {
					violations.add("term " + write.term() + " of " + write.instance() + " accepted after term "
							+ lastAccepted.term() + " of " + lastAccepted.instance());
				}
				lastAccepted = write;
			}
			else if (!mayBeRefused.contains(write.instance())) {
				violations.add("term " + write.term() + " of " + write.instance() + " refused");
			}
		}
		if (!violations.isEmpty()) {
			violations.add("writes in the server's order: " + writes() + "; outcome unknown: " + this.failedWrites);
		}
		return violations;
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

	/**
	 * Judges the grants: no term granted twice, and each grant's term above every term granted before it, among
	 * all instances for a log of this JVM's listeners and within each instance for a log of candidate JVMs.
	 * @return every term granted twice and every grant not above all earlier ones; empty when all is well
	 */
	synchronized List<String> violations() {
		List<String> violations = new ArrayList<>();
		Map<Long, String> holders = new HashMap<>();
		Map<String, Long> highest = new HashMap<>();
		for (Entry entry : this.entries) {
			if (!entry.granted()) {
				continue;
			}
			String before = holders.putIfAbsent(entry.term(), entry.instance());
			if (before != null) {
				violations.add("term " + entry.term() + " granted to " + before + " and again to " + entry.instance());
			}
			String scope = this.orderedAcrossInstances ? "" : entry.instance();
			long above = highest.getOrDefault(scope, Long.MIN_VALUE);
			if (entry.term() <= above) {
				violations.add("term " + entry.term() + " granted to " + entry.instance() + " after term " + above);
			}
			highest.put(scope, Math.max(above, entry.term()));
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
	 * @param sequence its place among the resource's writes, in the order the resource's server took them
	 */
	record Write(String instance, long term, boolean accepted, long sequence) {
	}

}
