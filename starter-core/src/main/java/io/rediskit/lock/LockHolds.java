package io.rediskit.lock;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.rediskit.support.CallerEnds;
import io.rediskit.support.Listeners;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The holds of one registry's owners and the ids they go by, whatever the engine. Each registry has a random
 * instance id; an owner is that id plus the thread id ({@link java.util.concurrent.locks.Lock} methods) or plus a
 * lease number ({@link Lease}); request ids, unique within the registry, let the scripts recognise a replay.
 * A hold lives from its first acquisition to its last release, so memory is bounded by the locks held at a
 * time, not by the names ever used.
 */
final class LockHolds {

	private static final Log logger = LogFactory.getLog(LockHolds.class);

	private final String instanceId = UUID.randomUUID().toString();

	private final AtomicLong sequence = new AtomicLong();

	/**
	 * Each thread's owner, built once per thread: a lock and an unlock look the hold up by it, and the same string
	 * hashes once. A thread's id is never reused while the JVM runs; the entry goes with its thread.
	 */
	private final ThreadLocal<String> threadOwners = ThreadLocal
		.withInitial(() -> this.instanceId + ":t" + Thread.currentThread().getId());

	private final ConcurrentMap<Id, LockHold> holds = new ConcurrentHashMap<>();

	private final Listeners<LockListener> listeners;

	private final Clock clock;

	private final LockObservations observations;

	LockHolds(Listeners<LockListener> listeners, Clock clock, LockObservations observations) {
		this.listeners = listeners;
		this.clock = clock;
		this.observations = observations;
	}

	/** @return the owner the calling thread acquires as */
	String threadOwner() {
		return this.threadOwners.get();
	}

	/** @return a new owner for one lease */
	String leaseOwner() {
		return this.instanceId + ":l" + this.sequence.incrementAndGet();
	}

	String nextRequestId() {
		return Long.toString(this.sequence.incrementAndGet(), 36);
	}

	@Nullable LockHold get(RedisLock lock, String owner) {
		return get(lock.keys().lock, owner);
	}

	/** @return the owner's hold of the lock whose key is {@code lockKey} */
	@Nullable LockHold get(String lockKey, String owner) {
		return this.holds.get(new Id(lockKey, owner));
	}

	/**
	 * Records an acquisition confirmed now, whose lease runs from now.
	 * @param count the hold count the engine reported; {@code 1} for a first hold
	 * @return the hold, new or with one more hold counted
	 */
	LockHold acquired(RedisLock lock, String owner, long fencingToken, int count, long leaseMillis, boolean watchdog) {
		return acquired(lock, owner, fencingToken, count, leaseMillis, watchdog,
				System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis));
	}

	/**
	 * Records a successful acquisition. Hold counts are the client's: the count an engine reports only backs
	 * replays and re-entries up, since a re-entry whose reply was lost may have raised it.
	 * @param count the hold count the engine reported; {@code 1} for a first hold
	 * @param validUntilNanos until when the lease certainly runs
	 * @return the hold, new or with one more hold counted
	 */
	LockHold acquired(RedisLock lock, String owner, long fencingToken, int count, long leaseMillis, boolean watchdog,
			long validUntilNanos) {
		Id id = new Id(lock.keys().lock, owner);
		LockHold hold = this.holds.get(id);
		if (count == 1 || hold == null || hold.isLost()) {
			hold = new LockHold(lock, owner, fencingToken, leaseMillis, watchdog, Instant.now(this.clock),
					validUntilNanos);
			hold.observed(this.observations.startHold(lock.group()));
			this.holds.put(id, hold);
		}
		else {
			hold.reentered(validUntilNanos);
		}
		return hold;
	}

	/** Forgets a hold that ended; its observation ends as released unless a loss or a failure ended it first. */
	void forget(LockHold hold) {
		this.holds.remove(new Id(hold.lock.keys().lock, hold.owner), hold);
		hold.endObservation("released", null);
	}

	/**
	 * The outcome of a wait whose caller ended its stage before the wait handed its end over, as the caller sees it
	 * ({@link CallerEnds#endedByCaller}): {@link AcquireResult#TIMEOUT} for a stage ended with a
	 * {@link java.util.concurrent.TimeoutException} (the caller's own deadline, as {@code orTimeout} ends a stage),
	 * {@link AcquireResult#INTERRUPTED} for any other end (a cancel, a value or another failure).
	 * @param caller the stage, completed
	 * @return the outcome to report
	 */
	static AcquireResult endedByCaller(CompletableFuture<?> caller) {
		return CallerEnds.endedByCaller(caller, AcquireResult.TIMEOUT, AcquireResult.INTERRUPTED);
	}

	/**
	 * Hands what a wait was granted to its caller's stage. Nothing in the wait can refuse the caller's own end of the
	 * stage (a cancel, a completion, its deadline: {@link CallerEnds#whenCallerEnds}), so completing the stage is the one
	 * point where a grant and the caller's end are decided together: the wait reports {@link AcquireResult#ACQUIRED}
	 * only when this answers {@code true}, after it. Otherwise the caller never sees the grant and the holds are
	 * {@linkplain #abandon abandoned}: the wait reports what the caller's stage saw ({@link #endedByCaller}) and
	 * gives back in Redis what they took, as it gives back a grant that was answered after the caller's end.
	 * @param granted the lease over the holds
	 * @param taken the holds the grant recorded, before the caller could release them
	 * @return whether the caller got the lease
	 */
	<T> boolean handOver(CompletableFuture<T> caller, T granted, Collection<LockHold> taken) {
		if (caller.complete(granted)) {
			return true;
		}
		for (LockHold hold : taken) {
			abandon(hold);
		}
		return false;
	}

	/**
	 * Ends a caller's stage with what ended its wait without a grant (the wait ran out, Redis failed, the registry
	 * stopped), decided as a grant is ({@link #handOver}): the caller's own end of the stage can come at any moment
	 * and nothing refuses it, so the stage taking the failure is the one point where the two are decided together.
	 * The wait reports what this answers, after it: the outcome the caller's stage saw, never a timeout or an error
	 * for a stage the caller had ended.
	 * @param failure what the stage completes with
	 * @param outcome the wait's outcome should the stage take the failure
	 * @return {@code outcome}, or {@link #endedByCaller} when the caller had ended the stage already
	 */
	AcquireResult handOver(CompletableFuture<?> caller, Throwable failure, AcquireResult outcome) {
		return caller.completeExceptionally(failure) ? outcome : endedByCaller(caller);
	}

	/**
	 * Forgets a hold nobody will release, as if it had never been held: never renewed again, not listed, and its
	 * observation ends as {@code abandoned}, not released. It is marked as releasing first, as a release marks its
	 * hold: the watchdog may have picked it for a renewal before it was forgotten, and that renewal, sent after the
	 * give-back, finds the key gone; it must not report the lease as lost. What it took in Redis is the caller's to
	 * give back.
	 */
	void abandon(LockHold hold) {
		hold.releaseStarted();
		hold.endObservation("abandoned", null);
		forget(hold);
	}

	/** Records a lost hold once: never renewed again, reported to the listeners, and unlock will say so. */
	void markLost(LockHold hold) {
		if (hold.markLost()) {
			hold.endObservation("lost", new LockLeaseLostException(hold.lock.name(), hold.fencingToken));
			logger.warn("Lock '" + hold.lock.name() + "' (fencing token " + hold.fencingToken
					+ ") was lost before its owner released it");
			this.listeners.notify((listener) -> listener.onLeaseLost(hold.lock.group(), hold.fencingToken));
		}
	}

	/** @return the holds now, for the watchdog */
	Collection<LockHold> all() {
		return this.holds.values();
	}

	/** @return the holds that are not lost, oldest first */
	List<HeldLock> describe() {
		long now = System.nanoTime();
		List<HeldLock> held = new ArrayList<>();
		for (LockHold hold : this.holds.values()) {
			if (!hold.isLost()) {
				held.add(hold.describe(now));
			}
		}
		held.sort(Comparator.comparing(HeldLock::heldSince));
		return held;
	}

	private record Id(String key, String owner) {
	}

}
