package io.rediskit.lock;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when semaphore permits were not acquired within the wait time, by {@link RedisSemaphore#acquire} and by
 * methods annotated with {@code @DistributedSemaphore}. It is a {@link LockNotAcquiredException}, so code (and
 * the starter's HTTP 409 answer) that handles a busy lock handles a full semaphore the same way.
 */
public class SemaphoreNotAcquiredException extends LockNotAcquiredException {

	private static final long serialVersionUID = 1L;

	private final int permits;

	/**
	 * @param semaphoreName the full semaphore name
	 * @param permits how many permits were asked for
	 * @param waitTime how long the caller waited
	 * @param cause the interruption or failure that ended the wait, or {@code null} for a timeout
	 */
	public SemaphoreNotAcquiredException(String semaphoreName, int permits, Duration waitTime,
			@Nullable Throwable cause) {
		super(semaphoreName, waitTime, cause, permits + ((permits == 1) ? " permit" : " permits") + " of semaphore '"
				+ semaphoreName + "' were not acquired within " + waitTime
				+ ((cause instanceof InterruptedException) ? " (interrupted)" : ""));
		this.permits = permits;
	}

	/** @return how many permits were asked for */
	public int getPermits() {
		return this.permits;
	}

}
