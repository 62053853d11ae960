package io.rediskit.instance;

import java.util.List;

/**
 * What an instance runs and holds, asked for at every heartbeat.
 *
 * @param runs what it runs, as short labels such as {@code queue:orders} or {@code job:nightly-digest}
 * @param holds the locks and permits it holds now
 * @param leads the roles it leads now
 * @param semaphores the semaphores it uses (handed out since it started), so that any instance can list them
 * @param latches the names of the count-down latches it uses, likewise
 * @param caches the names of the caches it uses (configured, or used since it started), so that an operator on any
 * instance may evict from or clear a cache only others use
 */
public record InstanceReport(List<String> runs, List<InstanceHold> holds, List<InstanceLeadership> leads,
		List<InstanceSemaphore> semaphores, List<String> latches, List<String> caches) {

	/** Nothing run, nothing held. */
	public static final InstanceReport EMPTY = new InstanceReport(List.of(), List.of(), List.of());

	/**
	 * Copies the lists.
	 * @param runs what it runs
	 * @param holds what it holds
	 * @param leads the roles it leads
	 * @param semaphores the semaphores it uses
	 * @param latches the latches it uses
	 * @param caches the caches it uses
	 */
	public InstanceReport {
		runs = List.copyOf(runs);
		holds = List.copyOf(holds);
		leads = List.copyOf(leads);
		semaphores = List.copyOf(semaphores);
		latches = List.copyOf(latches);
		caches = List.copyOf(caches);
	}

	/**
	 * A report that names no cache.
	 * @param runs what it runs
	 * @param holds what it holds
	 * @param leads the roles it leads
	 * @param semaphores the semaphores it uses
	 * @param latches the latches it uses
	 */
	public InstanceReport(List<String> runs, List<InstanceHold> holds, List<InstanceLeadership> leads,
			List<InstanceSemaphore> semaphores, List<String> latches) {
		this(runs, holds, leads, semaphores, latches, List.of());
	}

	/**
	 * A report that names no semaphore or latch.
	 * @param runs what it runs
	 * @param holds what it holds
	 * @param leads the roles it leads
	 */
	public InstanceReport(List<String> runs, List<InstanceHold> holds, List<InstanceLeadership> leads) {
		this(runs, holds, leads, List.of(), List.of());
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
