package io.rediskit.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.Lock;

import org.jspecify.annotations.Nullable;

/**
 * What every redis-kit lock offers, whichever entry point handed it out: the single-node {@link RedisLock} of a
 * {@link LockRegistry} and the {@link RedlockLock} of a {@link RedlockRegistry}. Code written against this
 * interface runs on either; the semantics, guarantees and limits of each are on its own class.
 * <p>
 * Thread-owned holds come from the {@link Lock} methods (reentrant per thread, released by the same thread);
 * {@link RedisLock.Lease}s come from {@link #acquire(Duration)} and {@link #acquireAsync(Duration)}, owned by no
 * thread. Every first acquisition carries a fencing token.
 */
public interface LeaseLock extends Lock {

	/** @return the full lock name */
	String getName();

	/** @return the group name, the tag its metrics carry */
	String getGroup();

	/**
	 * Waits as long as it takes, with an explicit lease that is not renewed.
	 * @param leaseTime how long the lock is held at most
	 */
	void lock(Duration leaseTime);

	/**
	 * Waits up to {@code waitTime} for the lock.
	 * @param waitTime how long to wait; zero or negative for a single attempt
	 * @return whether the current thread holds the lock
	 * @throws InterruptedException if interrupted while waiting; nothing is held then
	 */
	boolean tryLock(Duration waitTime) throws InterruptedException;

	/**
	 * Waits up to {@code waitTime} for the lock and holds it for at most {@code leaseTime}.
	 * @param waitTime how long to wait; zero or negative for a single attempt
	 * @param leaseTime the lease, not renewed; {@code null} for the default (the watchdog if unset)
	 * @return whether the current thread holds the lock
	 * @throws InterruptedException if interrupted while waiting; nothing is held then
	 */
	boolean tryLock(Duration waitTime, @Nullable Duration leaseTime) throws InterruptedException;

	/**
	 * The fencing token of the current thread's hold.
	 * @return the token
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 */
	long getFencingToken();

	/**
	 * Acquires the lock for a lease owned by no thread, waiting up to the default wait time.
	 * @return the lease; close it to release the lock
	 * @throws LockNotAcquiredException if the wait time ran out or the thread was interrupted
	 */
	RedisLock.Lease acquire();

	/**
	 * Acquires the lock for a lease owned by no thread.
	 * @param waitTime how long to wait; zero for a single attempt
	 * @return the lease; close it, from any thread, to release the lock
	 * @throws LockNotAcquiredException if the wait time ran out or the thread was interrupted
	 */
	RedisLock.Lease acquire(Duration waitTime);

	/**
	 * Acquires the lock for a lease owned by no thread, with an explicit lease time.
	 * @param waitTime how long to wait; zero for a single attempt
	 * @param leaseTime the lease, not renewed; {@code null} for the default (the watchdog if unset)
	 * @return the lease; close it, from any thread, to release the lock
	 * @throws LockNotAcquiredException if the wait time ran out or the thread was interrupted
	 */
	RedisLock.Lease acquire(Duration waitTime, @Nullable Duration leaseTime);

	/**
	 * Like {@link #acquire(Duration, Duration)}, but an empty result instead of an exception on timeout.
	 * @param waitTime how long to wait; zero for a single attempt
	 * @param leaseTime the lease, not renewed; {@code null} for the default (the watchdog if unset)
	 * @return the lease, or empty if the wait time ran out
	 * @throws LockNotAcquiredException if the thread was interrupted
	 */
	Optional<RedisLock.Lease> tryAcquire(Duration waitTime, @Nullable Duration leaseTime);

	/**
	 * Acquires the lock for a lease owned by no thread without blocking the calling thread, with the default
	 * lease.
	 * @param waitTime how long to wait; zero or negative for a single attempt
	 * @return the lease, or completed exceptionally with {@link LockNotAcquiredException} when the wait time ran
	 * out
	 */
	CompletionStage<RedisLock.Lease> acquireAsync(Duration waitTime);

	/**
	 * Acquires the lock for a lease owned by no thread without blocking the calling thread.
	 * @param waitTime how long to wait; zero or negative for a single attempt
	 * @param leaseTime the lease, not renewed; {@code null} for the default (the watchdog if unset)
	 * @return the lease; completed exceptionally with {@link LockNotAcquiredException} when the wait time ran
	 * out, with Spring's {@code DataAccessException} when Redis failed
	 */
	CompletionStage<RedisLock.Lease> acquireAsync(Duration waitTime, @Nullable Duration leaseTime);

}
