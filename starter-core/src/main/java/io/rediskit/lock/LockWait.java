package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What every acquisition that waits without a thread of its own knows, whatever the engine: the lock and its
 * shell, the owner, the lease (explicit, or the watchdog timeout renewed by the watchdog), the wait and when it
 * started, and how it reports its outcome: once, whatever the engine. A subclass is one engine's wait
 * ({@link AsyncAcquisition}, {@link RedlockAcquisition}, {@link MemberWait}); its fields are this class's, so the
 * common part costs no object of its own.
 */
abstract class LockWait {

	final RedisLock lock;

	final LockParts parts;

	final String owner;

	final long leaseMillis;

	/** Whether the watchdog renews the lease: no explicit or default lease was asked for. */
	final boolean watchdog;

	/** The wait asked for, as the exception that says it ran out names it. */
	final Duration waitTime;

	/** How long to wait: {@code 0} for one attempt, negative for ever. */
	final long waitNanos;

	final long startedNanos = System.nanoTime();

	private final Observation wait;

	/** Whether the outcome was reported. */
	private final AtomicBoolean reported = new AtomicBoolean();

	/** Whether a wait that runs out is a skip, not a timeout; set before the wait starts. */
	private volatile boolean skipIfHeld;

	/**
	 * @param leaseMillis the explicit or default lease, not renewed; {@code null} for a lease of the watchdog
	 * timeout that the watchdog renews
	 */
	LockWait(RedisLock lock, String owner, @Nullable Long leaseMillis, Duration waitTime, long waitNanos) {
		this.lock = lock;
		this.wait = lock.startWait();
		this.parts = lock.parts();
		this.owner = owner;
		this.leaseMillis = (leaseMillis != null) ? leaseMillis : this.parts.watchdogTimeout().toMillis();
		this.watchdog = leaseMillis == null;
		this.waitTime = waitTime;
		this.waitNanos = waitNanos;
	}

	/** @return the wait left, or {@link Long#MAX_VALUE} for a wait without end */
	final long remainingNanos() {
		return (this.waitNanos < 0) ? Long.MAX_VALUE : this.waitNanos - (System.nanoTime() - this.startedNanos);
	}

	/**
	 * Reports the outcome of the wait, the first time only: every wait has exactly one. A wait without a thread
	 * can be ended on two threads: a cancellation completes the stage, then runs its callbacks (the caller's, the
	 * last registered, first), and an attempt in flight that is answered in between finds the stage cancelled and
	 * ends the wait too. Both report the stage's outcome; the listeners hear it once.
	 */
	final void report(AcquireResult result) {
		if (this.reported.compareAndSet(false, true)) {
			this.lock.report((result == AcquireResult.TIMEOUT && this.skipIfHeld) ? AcquireResult.SKIPPED : result,
					this.startedNanos, this.wait);
		}
	}

	/**
	 * Makes a wait that runs out a skip ({@link AcquireResult#SKIPPED}, no error on the observation) instead of a
	 * timeout: for a try whose finding the lock held is the normal case, as a follower's for the leader lock.
	 * @param skip whether it is such a try; call before the wait starts
	 */
	final void skipIfHeld(boolean skip) {
		this.skipIfHeld = skip;
	}

	/**
	 * Opens the wait's scope on this thread, for as long as an attempt is dispatched (whichever thread dispatches
	 * it: the caller's, the driver's, the scheduler's), so that the driver's command span is the wait's child;
	 * close it as soon as the call is sent, never across a completion.
	 */
	final Observation.Scope openScope() {
		return this.wait.openScope();
	}

	final LockNotAcquiredException notAcquired() {
		return new LockNotAcquiredException(this.lock.name(), this.waitTime, null);
	}

}
