package io.rediskit.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

import io.micrometer.observation.Observation;
import io.rediskit.support.Observations;
import org.jspecify.annotations.Nullable;

/**
 * Local record of one owner's hold on one lock, whatever the engine: what the watchdog renews, what unlock checks
 * and what the actuator lists. Lives from the first acquisition to the last release, so memory is bounded by the
 * locks held at a time, not by the names ever used.
 * <p>
 * What identifies the hold is final; what changes (the count, the validity, releasing, lost, a renewal in flight)
 * is private and changes only through the methods below, each named after the event that changes it, so that the
 * engines, the watchdog and a release cannot leave it half updated.
 */
final class LockHold {

	private static final AtomicReferenceFieldUpdater<LockHold, Observation> OBSERVATION = AtomicReferenceFieldUpdater
		.newUpdater(LockHold.class, Observation.class, "observation");

	final RedisLock lock;

	final String owner;

	final long fencingToken;

	final long leaseMillis;

	final boolean watchdog;

	final Instant heldSince;

	private volatile int holdCount;

	/**
	 * When the lease certainly still runs, by {@link System#nanoTime()}: the last confirmed acquisition or renewal
	 * plus the lease (single node), or the validity a majority confirmed (Redlock).
	 */
	private volatile long validUntilNanos;

	/** A release is in flight: a renewal that finds the key gone is not a loss. */
	private volatile boolean releasing;

	/** The lease ended before the owner released it; never renewed again. */
	private volatile boolean lost;

	/** The hold's observation until it ends; {@link Observation#NOOP} when nothing observes or once ended. */
	private volatile Observation observation = Observation.NOOP;

	/** A renewal is in flight: the watchdog does not send another one for this hold. */
	private final AtomicBoolean renewing = new AtomicBoolean();

	LockHold(RedisLock lock, String owner, long fencingToken, long leaseMillis, boolean watchdog, Instant heldSince,
			long validUntilNanos) {
		this.lock = lock;
		this.owner = owner;
		this.fencingToken = fencingToken;
		this.leaseMillis = leaseMillis;
		this.watchdog = watchdog;
		this.heldSince = heldSince;
		this.validUntilNanos = validUntilNanos;
		this.holdCount = 1;
	}

	/** @return the hold's observation's scope, opened on this thread; {@code Scope.NOOP} once it ended */
	Observation.Scope openObservationScope() {
		return this.observation.openScope();
	}

	/** @param observation the hold's observation, started when the hold was made */
	void observed(Observation observation) {
		this.observation = observation;
	}

	/**
	 * Ends the hold's observation, the first time only: a release, a loss and a release that failed may each be
	 * the end, and the first one tells.
	 * @param outcome {@code released}, {@code lost} or {@code error}
	 * @param error what it ended with, or {@code null}
	 */
	void endObservation(String outcome, @Nullable Throwable error) {
		Observation ended = OBSERVATION.getAndSet(this, Observation.NOOP);
		Observations.stop(ended, outcome, error);
	}

	/** @return how many times the owner holds the lock, as this client counts it */
	int holdCount() {
		return this.holdCount;
	}

	/** @return whether the lease ended before the owner released it */
	boolean isLost() {
		return this.lost;
	}

	/** @return whether a release is in flight */
	boolean isReleasing() {
		return this.releasing;
	}

	/** Whether the lease has certainly run out without a confirmed extension. */
	boolean leaseElapsed(long nowNanos) {
		return nowNanos - this.validUntilNanos >= 0;
	}

	/**
	 * @return how long the lease certainly still runs after {@code nowNanos}, in ns; {@code 0} or less once it
	 * may have ended, and {@code 0} when the hold is lost
	 */
	long certainNanos(long nowNanos) {
		return this.lost ? 0 : this.validUntilNanos - nowNanos;
	}

	/**
	 * One more hold by the same owner, confirmed now.
	 * @param validUntilNanos until when the lease certainly runs
	 */
	void reentered(long validUntilNanos) {
		this.validUntilNanos = validUntilNanos;
		this.holdCount++;
	}

	/** One more hold counted by the client only (a Redlock re-entry sends nothing), the lease unchanged. */
	void reenteredLocally() {
		this.holdCount++;
	}

	/**
	 * A renewal or a majority confirmed the lease.
	 * @param validUntilNanos until when the lease certainly runs now
	 */
	void extended(long validUntilNanos) {
		this.validUntilNanos = validUntilNanos;
	}

	/** A release is sent: a renewal that finds the key gone from now on is not a loss. */
	void releaseStarted() {
		this.releasing = true;
	}

	/** A release counted one re-entry down and the lock is still held: renewals count again. */
	void releasedOne() {
		this.holdCount--;
		this.releasing = false;
	}

	/**
	 * A release of a lost hold counts it down.
	 * @return the holds left
	 */
	int countDownLost() {
		return --this.holdCount;
	}

	/**
	 * Marks the hold lost.
	 * @return whether it was not lost before (the caller reports the loss once)
	 */
	synchronized boolean markLost() {
		boolean first = !this.lost;
		this.lost = true;
		return first;
	}

	/**
	 * Claims the one renewal in flight a hold may have.
	 * @return whether no renewal was in flight; the caller then sends one and calls {@link #renewalEnded}
	 */
	boolean startRenewal() {
		return this.renewing.compareAndSet(false, true);
	}

	/** The renewal {@link #startRenewal} claimed was answered or failed. */
	void renewalEnded() {
		this.renewing.set(false);
	}

	/** @return whether a renewal is in flight, for tests */
	boolean isRenewing() {
		return this.renewing.get();
	}

	/** Claims the renewal slot and never gives it back, as if Redis never answered again: for tests. */
	void stallRenewals() {
		this.renewing.set(true);
	}

	HeldLock describe(long nowNanos) {
		String ownerKind = this.owner.contains(":t") ? "thread:" + this.owner.substring(this.owner.lastIndexOf(":t") + 2)
				: "lease";
		return new HeldLock(this.lock.name(), this.lock.group(), this.heldSince,
				Duration.ofNanos(Math.max(0, this.validUntilNanos - nowNanos)), this.fencingToken, this.holdCount,
				this.watchdog, ownerKind);
	}

}
