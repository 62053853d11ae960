package io.rediskit.lock;

/**
 * Thrown by {@link RedisLock#unlock()} and {@link Lease#close()} when the caller's hold had already
 * ended: its lease ran out (a pause, a slow call, an unreachable Redis) and the lock expired or passed to
 * another owner. Nothing was changed in Redis; another owner's lock is left alone. Whatever the caller did
 * after the loss ran without mutual exclusion: fence writes with {@link Lease#fencingToken()} so
 * that the protected resource rejects them.
 */
public class LockLeaseLostException extends IllegalMonitorStateException {

	private static final long serialVersionUID = 1L;

	private final String lockName;

	private final long fencingToken;

	/**
	 * @param lockName the full lock name
	 * @param fencingToken the token of the lost hold
	 */
	public LockLeaseLostException(String lockName, long fencingToken) {
		super("Lock '" + lockName + "' (fencing token " + fencingToken
				+ ") was lost before it was released: its lease ended or another owner holds it now");
		this.lockName = lockName;
		this.fencingToken = fencingToken;
	}

	/** @return the full name of the lost lock */
	public String getLockName() {
		return this.lockName;
	}

	/** @return the fencing token of the lost hold */
	public long getFencingToken() {
		return this.fencingToken;
	}

}
