package io.rediskit.queue;

/**
 * What a recurring job does with its missed slots: slots that no instance enqueued within the job's grace after
 * their time, because every instance was down, stopped or cut off from Redis. A slot enqueued late but within the
 * grace is not missed: it runs whatever the policy.
 */
public enum MissedSlots {

	/** Enqueue none of them; the job runs again at its next slot. Each skipped slot is counted. */
	SKIP,

	/**
	 * Enqueue the most recent missed slot, once, and skip the others (counted): a job that catches up on state,
	 * such as a report of everything since it last ran.
	 */
	RUN_ONCE,

	/**
	 * Enqueue every missed slot, oldest first, up to the {@value RecurringJobs#MAX_CATCH_UP} most recent; older
	 * ones are skipped and counted. For jobs whose slots each stand for their own period.
	 */
	RUN_EACH

}
