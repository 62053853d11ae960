package io.rediskit.lock;

/**
 * How a wait for a lock of the family ended: the outcome of its observation ({@code rediskit.lock.wait}), in
 * lower case.
 */
enum AcquireResult {

	/** The lock is held. */
	ACQUIRED,

	/** The wait time ran out first. */
	TIMEOUT,

	/** The waiting thread was interrupted, or the caller cancelled an asynchronous acquisition. */
	INTERRUPTED,

	/** Redis failed to answer. */
	ERROR,

	/**
	 * Another owner held the lock (or its lock-at-least time had not passed) and the caller skipped its run
	 * without waiting: a {@link JobLock} run, such as a {@code @ScheduledLock} job on another instance, or a
	 * {@link RedisLock#tryAcquireRenewedAsync(String)} try, such as a leader election follower's.
	 * ({@code @DistributedLock(onNotAcquired = SKIP)} waited first, so it counts as {@link #TIMEOUT}.)
	 */
	SKIPPED

}
