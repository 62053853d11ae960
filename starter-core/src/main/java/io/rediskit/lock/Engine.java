package io.rediskit.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

import io.rediskit.lock.LockListener.RenewalResult;
import io.rediskit.support.Background;
import org.jspecify.annotations.Nullable;

/**
 * How a lock talks to Redis: the one seam between the shell every lock shares ({@link RedisLock}, {@link Release},
 * {@link LockHolds}, {@link LockWatchdog}, {@link LockBackground}, reporting to {@link LockListener}) and an
 * algorithm. {@link SingleNodeEngine} runs the lock on one deployment (scripts, release signals, local
 * hand-off); {@link QuorumEngine} on a majority of independent servers (Redlock rounds). A new member of the
 * lock family implements this and reuses the shell unchanged.
 * <p>
 * An engine records holds through {@link LockHolds#acquired} and reports each acquisition's outcome through
 * {@link RedisLock#report}; everything else (what a release or a renewal means for the hold, the listeners, the
 * lost-lease rule) is the shell's.
 */
interface Engine {

	/**
	 * Acquires on the calling thread, a re-entry included.
	 * @param leaseMillis the explicit or default lease, not renewed; {@code null} for the watchdog
	 * @param waitNanos how long to wait: {@code 0} for one attempt, negative for as long as it takes
	 * @param interruptible whether an interrupt ends the wait, else it is remembered and restored
	 * @return the hold, or {@code null} when the wait ran out
	 * @throws InterruptedException if interruptible and interrupted; nothing is held then
	 */
	@Nullable LockHold acquire(RedisLock lock, String owner, @Nullable Long leaseMillis, long waitNanos,
			boolean interruptible) throws InterruptedException;

	/**
	 * Acquires a lease without blocking the calling thread; a cancelled stage leaves nothing held.
	 * @param leaseMillis the explicit or default lease, not renewed; {@code null} for the watchdog
	 * @param waitTime the wait asked for, for the exception that says it ran out
	 * @param waitNanos how long to wait: {@code 0} for one attempt
	 * @param skipIfHeld whether a wait that runs out is observed as a skip, not a timeout (a try for a lock that is
	 * normally held by another, as a follower's for its election's)
	 * @return the lease, or exceptionally with {@link LockNotAcquiredException} when the wait ran out
	 */
	CompletionStage<Lease> acquireAsync(RedisLock lock, String owner, @Nullable Long leaseMillis, Duration waitTime,
			long waitNanos, boolean skipIfHeld);

	/**
	 * Releases one hold that is not lost.
	 * @return the holds left ({@code 0} when the lock is free), or {@code -1} when the owner no longer holds it;
	 * exceptionally when the outcome is unknown
	 */
	CompletionStage<Long> release(LockHold hold);

	/** A release found the hold lost already: frees what the owner may still hold, without waiting. */
	void releaseLost(LockHold hold);

	/**
	 * Extends a watchdog hold's lease, and on success its validity ({@link LockHold#extended}).
	 * @return {@link RenewalResult#RENEWED}, or {@link RenewalResult#LOST} when another owner has the lock or
	 * nobody does; exceptionally when the outcome is unknown
	 */
	CompletionStage<RenewalResult> renew(LockHold hold);

	/**
	 * Waits for a stage on the calling thread, bounded as the engine's calls are.
	 * @param operation what is awaited, a constant, for the exception should it never complete
	 * @param lock the lock it is awaited for, named in that exception
	 */
	<T> T await(CompletionStage<T> stage, String operation, RedisLock lock);

	/** @return whether any owner holds the lock now */
	boolean isLocked(RedisLock lock);

	/**
	 * Who holds the lock now, whichever instance, as Redis has it (for a quorum, the owner a majority of nodes
	 * store), changing nothing.
	 * @return the holder, or empty when nobody holds it; exceptionally when Redis (or too many nodes) could not tell
	 * @throws UnsupportedOperationException for a member whose handles have many holders at once (a read lock, a
	 * semaphore's permits): no single answer exists, and an empty one would say "free"
	 */
	CompletionStage<Optional<Holder>> holderAsync(RedisLock lock);

	/** @return {@link #isLocked}, without blocking the calling thread */
	CompletionStage<Boolean> isLockedAsync(RedisLock lock);

	/** @return how many times {@code owner} holds the lock now */
	int holdCount(RedisLock lock, String owner);

	/**
	 * Checks a lease asked for by a call.
	 * @throws IllegalArgumentException naming {@code leaseTime} when it is out of range
	 */
	void requireLease(Duration leaseTime);

	/** @return the shortest lease {@link #requireLease} accepts */
	Duration minimumLeaseTime();

	/** Starts what the engine runs in the background, on the registry's threads. */
	void start(Background background);

	/** Stops what {@link #start} started. */
	void stop();

	/**
	 * Who holds a lock, as its keys store it.
	 * @param owner the owner id the holder acquired as ({@link LockHolds})
	 * @param fencingToken the holder's fencing token
	 */
	record Holder(String owner, long fencingToken) {
	}

}
