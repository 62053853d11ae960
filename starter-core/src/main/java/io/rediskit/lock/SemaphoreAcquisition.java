package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

import io.rediskit.lock.LockListener.AcquireResult;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.ReleaseSignals;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

/**
 * One blocking acquisition of semaphore permits: attempt; when too few are free, join the semaphore's release
 * channel and attempt again when a release message arrives, when the earliest holder's lease ends (a crashed
 * holder publishes nothing) or after {@code maxPollInterval}, until the wait runs out. Waiters are not queued:
 * whoever attempts first after a release gets the permits, so a caller asking for many permits can be overtaken
 * by callers asking for few.
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

	private final AtomicBoolean reported = new AtomicBoolean();

	/**
	 * @param leaseMillis an explicit lease, not renewed, or {@code null} for the watchdog
	 * @param waitNanos how long to wait: {@code 0} for one attempt, negative for as long as it takes
	 */
	SemaphoreAcquisition(RedisSemaphore semaphore, String owner, int permits, @Nullable Long leaseMillis,
			Duration waitTime, long waitNanos) {
		this.semaphore = semaphore;
		this.lock = semaphore.identity();
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
		ReleaseSignals.Waiter waiter = null;
		try {
			while (true) {
				SemaphoreScripts.Attempt attempt = attemptNow();
				if (attempt.state() == SemaphoreScripts.Attempt.State.ACQUIRED) {
					return acquired(attempt);
				}
				long left = (this.waitNanos < 0) ? Long.MAX_VALUE : deadline - System.nanoTime();
				if (this.waitNanos == 0 || left <= 0) {
					report(AcquireResult.TIMEOUT);
					return null;
				}
				boolean interrupted;
				if (waiter == null) {
					// Joining subscribes: a release between the attempt and the subscription woke nobody, so
					// attempt again once subscribed.
					waiter = this.engine.signals.join(this.lock.keys().released, this.owner, this.leaseMillis);
					interrupted = waiter.awaitSubscription(Math.min(left, attempt.sleepNanos(maxPollNanos())));
				}
				else {
					interrupted = waiter.park(Math.min(left, attempt.sleepNanos(maxPollNanos())));
				}
				if (interrupted) {
					report(AcquireResult.INTERRUPTED);
					throw new InterruptedException("Waiting for permits of semaphore '" + this.lock.name() + "'");
				}
			}
		}
		finally {
			if (waiter != null) {
				this.engine.signals.leave(waiter);
			}
		}
	}

	private SemaphoreScripts.Attempt attemptNow() {
		try {
			return requireWithinTotal(Stages.uninterruptibly(() -> Stages.join(attemptAsync())));
		}
		catch (RuntimeException ex) {
			throw failed(ex);
		}
	}

	CompletionStage<SemaphoreScripts.Attempt> attemptAsync() {
		return this.engine.scripts.acquire(this.lock.keys(), this.owner, this.permits, this.leaseMillis,
				this.semaphore.total());
	}

	/** @throws IllegalArgumentException when more permits were asked for than the total in force */
	SemaphoreScripts.Attempt requireWithinTotal(SemaphoreScripts.Attempt attempt) {
		if (attempt.state() == SemaphoreScripts.Attempt.State.TOO_MANY) {
			throw new IllegalArgumentException("permits (" + this.permits + ") must not exceed the total ("
					+ attempt.total() + ") of semaphore '" + this.lock.name() + "'");
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
	 * Reports the outcome of this acquisition, the first time only: an asynchronous wait can be ended by its
	 * answer and by a cancellation at once.
	 */
	void report(AcquireResult result) {
		if (this.reported.compareAndSet(false, true)) {
			this.lock.report(result, this.startedNanos);
		}
	}

	/**
	 * A failed attempt: undone should it have taken effect, reported, and rethrown as is.
	 * @param failure the attempt's failure
	 */
	RuntimeException failed(Throwable failure) {
		Throwable cause = Stages.unwrap(failure);
		if (cause instanceof IllegalArgumentException wrongPermits) {
			report(AcquireResult.ERROR);
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
		report(AcquireResult.ERROR);
		return (cause instanceof RuntimeException runtime) ? runtime : new CompletionException(cause);
	}

	long maxPollNanos() {
		return this.engine.spec.maxPollInterval().toNanos();
	}

}
