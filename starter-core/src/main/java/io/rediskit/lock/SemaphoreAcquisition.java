package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.observation.Observation;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.ReleaseSignals;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

/**
 * One blocking acquisition of semaphore permits: attempt; when too few are free, join the semaphore's release
 * channel and attempt again when a release message arrives, when the earliest holder's lease ends (a crashed
 * holder publishes nothing) or after {@code maxPollInterval}, until the wait runs out. Waiters are not queued
 * across clients: whoever attempts first after a release gets the permits, so a caller asking for many permits can
 * be overtaken by callers asking for few. A release by a thread of the same registry may hand its permits straight
 * to the longest-waiting thread here ({@link SemaphoreEngine#release(LockHold)}), which then holds them without an attempt of
 * its own.
 * <p>
 * An attempt whose reply is lost (Redis timed out) may still have taken the permits: it is undone in the
 * background, so that they come back at once rather than when the lease ends.
 */
class SemaphoreAcquisition {

	final RedisSemaphore semaphore;

	final RedisLock lock;

	final LockParts parts;

	final SemaphoreEngine engine;

	final String owner;

	final int permits;

	final long leaseMillis;

	final boolean watchdog;

	final Duration waitTime;

	final long waitNanos;

	final long startedNanos = System.nanoTime();

	/** The wait's observation ({@code rediskit.lock.wait}, kind {@code semaphore}), ended by {@link #report}. */
	private final Observation wait;

	private final AtomicBoolean reported = new AtomicBoolean();

	/**
	 * @param leaseMillis an explicit lease, not renewed, or {@code null} for the watchdog
	 * @param waitNanos how long to wait: {@code 0} for one attempt, negative for as long as it takes
	 */
	SemaphoreAcquisition(RedisSemaphore semaphore, String owner, int permits, @Nullable Long leaseMillis,
			Duration waitTime, long waitNanos) {
		this.semaphore = semaphore;
		this.lock = semaphore.identity();
		this.wait = this.lock.startWait();
		this.parts = this.lock.parts();
		this.engine = semaphore.engine();
		this.owner = owner;
		this.permits = permits;
		this.watchdog = leaseMillis == null;
		this.leaseMillis = (leaseMillis != null) ? leaseMillis : this.parts.watchdogTimeout().toMillis();
		this.waitTime = waitTime;
		this.waitNanos = waitNanos;
	}

	/**
	 * Waits on the calling thread.
	 * @return the hold, or {@code null} when the wait ran out
	 * @throws InterruptedException if interrupted; nothing is held then
	 */
	@Nullable LockHold run() throws InterruptedException {
		long deadline = this.startedNanos + this.waitNanos;
		String channel = this.lock.keys().released;
		ReleaseSignals.Waiter waiter = null;
		boolean settled = false;
		SemaphoreScripts.Attempt acquired = null;
		try {
			boolean attemptFirst = true;
			if (this.waitNanos != 0 && this.engine.signals.hasWaiters(channel)) {
				ReleaseSignals.Waiter queued = this.engine.signals.join(channel, this.owner, this.leaseMillis,
						this.permits);
				if (!queued.subscribed && queued.queuedBehindOthers()) {
					// Local threads wait already: queue behind them rather than race them for the next release.
					// Woken in turn by a hand-off, a release message, a waiter ahead that acquired and left permits
					// free, or the poll interval.
					waiter = queued;
					attemptFirst = false;
				}
				else {
					// The others left meanwhile: attempt now, and join as usual should it fail.
					this.engine.signals.leave(queued);
				}
			}
			SemaphoreScripts.Attempt attempt = null;
			while (true) {
				if (waiter != null && !waiter.startAttempt()) {
					// A releaser claimed this waiter: it hands the permits over, or tells it to try again.
					long token = waiter.awaitResolution();
					if (token > 0) {
						settled = true;
						return handed(token);
					}
					waiter.rearm();
					continue;
				}
				if (attemptFirst) {
					attempt = attemptNow();
					if (attempt.state() == SemaphoreScripts.Attempt.State.ACQUIRED) {
						settled = true;
						acquired = attempt;
						return acquired(attempt);
					}
				}
				if (waiter != null) {
					waiter.endAttempt();
				}
				long left = (this.waitNanos < 0) ? Long.MAX_VALUE : deadline - System.nanoTime();
				if (!attemptFirst && left <= 0) {
					// Queued, and out of time already: one attempt all the same.
					attemptFirst = true;
					continue;
				}
				if (this.waitNanos == 0 || left <= 0) {
					settled = true;
					long late = settle(waiter);
					if (late > 0) {
						return handed(late);
					}
					report(AcquireResult.TIMEOUT);
					return null;
				}
				long sleep = Math.min(left, (attempt != null) ? attempt.sleepNanos(maxPollNanos()) : maxPollNanos());
				attemptFirst = true;
				boolean interrupted;
				if (waiter == null) {
					// Joining subscribes: a release between the attempt and the subscription woke nobody, so
					// attempt again once subscribed.
					waiter = this.engine.signals.join(channel, this.owner, this.leaseMillis, this.permits);
					interrupted = waiter.awaitSubscription(sleep);
				}
				else {
					interrupted = waiter.park(sleep);
				}
				if (interrupted) {
					settled = true;
					long token = settle(waiter);
					if (token > 0) {
						// Handed the permits as the interrupt came: they are held, and the interrupt stays pending.
						Thread.currentThread().interrupt();
						return handed(token);
					}
					report(AcquireResult.INTERRUPTED);
					throw new InterruptedException("Waiting for permits of semaphore '" + this.lock.name() + "'");
				}
			}
		}
		finally {
			if (waiter != null) {
				if (!settled && settle(waiter) > 0) {
					// Leaving on a failure while a releaser handed this owner permits: give them back (else their
					// lease ends them).
					try {
						this.engine.scripts.undo(this.lock.keys(), this.owner);
					}
					catch (RuntimeException ex) {
						// The lease ends them.
					}
				}
				else if (settled) {
					settle(waiter);
				}
				this.engine.signals.leave(waiter);
			}
			if (acquired != null && acquired.free() > 0) {
				// Permits are left free: a thread queued behind this one need not wait for a release.
				this.engine.signals.wakeNext(channel);
			}
		}
	}

	/**
	 * Leaves the releasers' queue; a waiter a releaser has already claimed waits for the claim's outcome.
	 * @return the fencing token of the permits handed over, or {@code 0} when none were
	 */
	private static long settle(ReleaseSignals.@Nullable Waiter waiter) {
		if (waiter == null || waiter.withdraw()) {
			return 0;
		}
		return waiter.awaitResolution();
	}

	/** @return the hold of permits a releaser handed over, reported as acquired */
	private LockHold handed(long fencingToken) {
		LockHold hold = this.parts.holds().acquired(this.lock, this.owner, fencingToken, 1, this.leaseMillis,
				this.watchdog);
		report(AcquireResult.ACQUIRED);
		return hold;
	}

	/** Sends one attempt and reads its reply on the calling thread, the wait in scope while it is sent. */
	private SemaphoreScripts.Attempt attemptNow() {
		try {
			return requireWithinTotal(Stages.uninterruptibly(this::attemptOnThisThread));
		}
		catch (RuntimeException ex) {
			RuntimeException error = failed(ex);
			report(AcquireResult.ERROR);
			throw error;
		}
	}

	private SemaphoreScripts.Attempt attemptOnThisThread() {
		try (Observation.Scope scope = this.wait.openScope()) {
			return this.engine.scripts.acquireNow(this.lock.keys(), this.owner, this.permits, this.leaseMillis,
					this.semaphore.total());
		}
	}

	/** Sends one attempt, the wait in scope while it is dispatched (the driver's command span its child). */
	CompletionStage<SemaphoreScripts.Attempt> attemptAsync() {
		try (Observation.Scope scope = this.wait.openScope()) {
			return this.engine.scripts.acquire(this.lock.keys(), this.owner, this.permits, this.leaseMillis,
					this.semaphore.total());
		}
	}

	/**
	 * @throws IllegalArgumentException when more permits were asked for than the total in force, with both counts
	 * and not the semaphore's name (it may be data the application received)
	 */
	SemaphoreScripts.Attempt requireWithinTotal(SemaphoreScripts.Attempt attempt) {
		if (attempt.state() == SemaphoreScripts.Attempt.State.TOO_MANY) {
			throw new IllegalArgumentException("permits (" + this.permits
					+ ") must not exceed the semaphore's total in force (" + attempt.total() + ")");
		}
		return attempt;
	}

	LockHold acquired(SemaphoreScripts.Attempt attempt) {
		LockHold hold = hold(attempt);
		report(AcquireResult.ACQUIRED);
		return hold;
	}

	/** @return the hold of permits an attempt took, watched by the watchdog if it renews them; not reported */
	LockHold hold(SemaphoreScripts.Attempt attempt) {
		return this.parts.holds().acquired(this.lock, this.owner, attempt.fencingToken(), 1, this.leaseMillis,
				this.watchdog);
	}

	/**
	 * Reports the outcome of this acquisition to the listeners and ends its observation, the first time only: an
	 * asynchronous wait can be ended by its answer and by a cancellation at once.
	 */
	void report(AcquireResult result) {
		if (this.reported.compareAndSet(false, true)) {
			this.lock.report(result, this.startedNanos, this.wait);
		}
	}

	/**
	 * A failed attempt: undone should it have taken effect, and rethrown as is; reporting it as an error is the
	 * caller's, once it knows the outcome (an asynchronous caller's stage may have been cancelled meanwhile).
	 * @param failure the attempt's failure
	 */
	RuntimeException failed(Throwable failure) {
		Throwable cause = Stages.unwrap(failure);
		if (cause instanceof IllegalArgumentException wrongPermits) {
			return wrongPermits;
		}
		try {
			this.engine.scripts.undo(this.lock.keys(), this.owner);
		}
		catch (RuntimeException ex) {
			// The lease ends an acquisition that cannot be undone either.
		}
		if (RedisFailures.isUnavailable(cause)) {
			this.parts.outages().warn(cause);
		}
		return (cause instanceof RuntimeException runtime) ? runtime : new CompletionException(cause);
	}

	long maxPollNanos() {
		return this.engine.spec.maxPollInterval().toNanos();
	}

}
