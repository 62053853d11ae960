package io.rediskit.lock;

/**
 * Thrown by an acquisition that took the lock but whose write fewer replicas acknowledged than
 * {@link LockSpec#replicaWait()} requires, under {@link io.rediskit.support.ReplicaWait.Shortfall#FAIL}: the
 * acquisition has been undone (the lock is not held), because a failover now could promote a replica that never
 * saw it and hand the lock to a second owner. Retrying is safe; a replica that stays behind makes every retry
 * fail the same way.
 */
public class LockNotReplicatedException extends LockNotAcquiredException {

	private static final long serialVersionUID = 1L;

	private final long acknowledged;

	private final int required;

	/**
	 * @param lockName the full lock name
	 * @param acknowledged how many replicas acknowledged the acquisition
	 * @param required how many had to
	 */
	public LockNotReplicatedException(String lockName, long acknowledged, int required) {
		super(lockName, java.time.Duration.ZERO, null, "Lock '" + lockName + "' was acquired but only " + acknowledged
				+ " of " + required + " required replicas acknowledged it; the acquisition was undone");
		this.acknowledged = acknowledged;
		this.required = required;
	}

	/** @return how many replicas acknowledged the acquisition */
	public long getAcknowledged() {
		return this.acknowledged;
	}

	/** @return how many replicas had to */
	public int getRequired() {
		return this.required;
	}

}
