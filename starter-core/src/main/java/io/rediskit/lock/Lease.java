package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * A hold on a lock owned by no thread, from {@link RedisLock#acquire(Duration)} or
 * {@link RedisLock#acquireAsync(Duration)}, whichever entry point ({@link LockRegistry}, {@link RedlockRegistry})
 * handed the lock out. Release it, from any thread, with {@link #close()} or {@link #releaseAsync()}; releasing
 * again does nothing.
 */
public interface Lease extends AutoCloseable {

	/** @return the full lock name */
	String lockName();

	/**
	 * The fencing token of this hold: strictly greater than every token handed out for this lock name before.
	 * Pass it with every write to the protected resource and have the resource reject tokens lower than the
	 * highest it has seen.
	 * @return the token
	 */
	long fencingToken();

	/** @return whether this lease is neither released nor known to be lost */
	boolean isActive();

	/**
	 * Releases the lock and waits for Redis to confirm it. Do not call it on the driver's thread, such as in a
	 * {@code thenApply} of {@link RedisLock#acquireAsync(Duration)}: it would wait for a reply that thread has to
	 * read, until the command timeout. Use {@link #releaseAsync()} there.
	 * @throws LockLeaseLostException if the lease was lost before this release
	 */
	@Override
	void close();

	/**
	 * Releases the lock without blocking the calling thread.
	 * @return completed, on the driver's thread, when Redis confirmed the release (at once when the lease was
	 * released before); exceptionally with {@link LockLeaseLostException} if the lease was lost before this
	 * release, or with Spring's {@code DataAccessException} if Redis failed (the lease then ends on its own)
	 */
	CompletionStage<@Nullable Void> releaseAsync();

}
