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
	 * How long this lease is certain to last from now: the lease of its last acquisition or renewal, counted from
	 * before that call was sent, less the time since; renewals by the watchdog move it on, failed or late ones do
	 * not. Cheap, asks nothing of Redis. A holder that acts only while this is comfortably positive (leader election
	 * waits for a third of the watchdog timeout) stops before another owner can take the lock, as long as its JVM
	 * runs.
	 * @return the certain remainder, {@link Duration#ZERO} once it ran out or the lease was released or lost
	 * @throws UnsupportedOperationException from a lease that is not the lock family's (this default, kept so that
	 * implementations written before this method, such as test doubles, still compile)
	 */
	default Duration certainValidity() {
		throw new UnsupportedOperationException(getClass().getName() + " does not tell its certain validity");
	}

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
