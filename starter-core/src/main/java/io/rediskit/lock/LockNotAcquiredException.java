package io.rediskit.lock;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a lock was not acquired within its wait time, for example by {@link RedisLock#acquire(Duration)}
 * and by methods annotated with {@link DistributedLock}. Web applications using the starter answer it with
 * HTTP 409 Conflict.
 */
public class LockNotAcquiredException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final String lockName;

	private final Duration waitTime;

	/**
	 * @param lockName the full lock name
	 * @param waitTime how long the caller waited
	 * @param cause the interruption or failure that ended the wait, or {@code null} for a timeout
	 */
	public LockNotAcquiredException(String lockName, Duration waitTime, @Nullable Throwable cause) {
		super("Lock '" + lockName + "' was not acquired within " + waitTime
				+ ((cause instanceof InterruptedException) ? " (interrupted)" : ""), cause);
		this.lockName = lockName;
		this.waitTime = waitTime;
	}

	/**
	 * For subclasses with a message of their own.
	 * @param lockName the full lock name
	 * @param waitTime how long the caller waited
	 * @param cause what ended the wait, or {@code null}
	 * @param message the message
	 */
	protected LockNotAcquiredException(String lockName, Duration waitTime, @Nullable Throwable cause, String message) {
		super(message, cause);
		this.lockName = lockName;
		this.waitTime = waitTime;
	}

	/** @return the full name of the lock that was not acquired */
	public String getLockName() {
		return this.lockName;
	}

	/** @return how long the caller waited */
	public Duration getWaitTime() {
		return this.waitTime;
	}

}
