package io.rediskit.instance;

import java.util.List;

/**
 * What an instance runs and holds, asked for at every heartbeat.
 *
 * @param runs what it runs, as short labels such as {@code queue:orders} or {@code job:nightly-digest}
 * @param holds the locks and permits it holds now
 * @param leads the roles it leads now
 */
public record InstanceReport(List<String> runs, List<InstanceHold> holds, List<InstanceLeadership> leads) {

	/** Nothing run, nothing held. */
	public static final InstanceReport EMPTY = new InstanceReport(List.of(), List.of(), List.of());

	/**
	 * Copies the lists.
	 * @param runs what it runs
	 * @param holds what it holds
	 * @param leads the roles it leads
	 */
	public InstanceReport {
		runs = List.copyOf(runs);
		holds = List.copyOf(holds);
		leads = List.copyOf(leads);
	}

	/**
	 * A report of an instance that leads no role.
	 * @param runs what it runs
	 * @param holds what it holds
	 */
	public InstanceReport(List<String> runs, List<InstanceHold> holds) {
		this(runs, holds, List.of());
	}

}
