package io.rediskit.lock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.rediskit.support.CallerEnds;
import io.rediskit.support.PollingWait;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of semaphore permits without a thread: attempts are asynchronous calls, and between them the
 * wait is a release message ({@link ReleaseSignals#joinAsync}) or a timer on the registry's scheduler (the
 * earliest lease's end, {@code maxPollInterval}, the wait's end), whichever comes first. At most one attempt is
 * in flight; a wake-up during an attempt starts another one after it.
 * <p>
 * The caller ending the returned stage itself, whichever way (a cancel, {@code complete}, its own deadline through
 * {@code orTimeout}: {@link CallerEnds#whenCallerEnds}), ends the wait at once, reported as the caller's stage saw it
 * ({@link LockHolds#endedByCaller}); permits an attempt in flight takes afterwards are released at once, also when
 * the caller's end comes as they are handed over ({@link LockHolds#handOver}): never reported as acquired, nor as a
 * release. Stopping the registry ends the wait with {@link IllegalStateException} (reported as
 * {@link AcquireResult#ERROR}). A timeout, a failure or a stop is handed to the stage the same way: one that the
 * caller's end beat is reported as the caller saw it.
 */
final class AsyncSemaphoreAcquisition extends SemaphoreAcquisition {

	private final CompletableFuture<Lease> result = new CompletableFuture<>();

	private final Runnable stopHook = this::stopped;

	private final PollingWait wait;

	AsyncSemaphoreAcquisition(RedisSemaphore semaphore, String owner, int permits, @Nullable Long leaseMillis,
			Duration waitTime, long waitNanos) {
		super(semaphore, owner, permits, leaseMillis, waitTime, waitNanos);
		this.wait = new PollingWait(this.engine.signals, this.lock.keys().released, this.owner, this.leaseMillis,
				this.parts.background()::schedule, this::attempt);
	}

	CompletableFuture<Lease> start() {
		this.parts.background().onStop(this.stopHook);
		// Every end of the wait's own finishes it before it completes the stage: then this finds it finished.
		CallerEnds.whenCallerEnds(this.result, () -> {
			if (finish()) {
				report(LockHolds.endedByCaller(this.result));
			}
		});
		this.wait.start();
		return this.result;
	}

	private void attempt() {
		try {
			attemptAsync().whenComplete(this::answered);
		}
		catch (RuntimeException ex) {
			answered(null, ex);
		}
	}

	private void answered(SemaphoreScripts.@Nullable Attempt attempt, @Nullable Throwable failure) {
		// Whoever ends the wait first (this answer, a cancellation, the registry stopping) reports it.
		if (failure != null || attempt == null) {
			boolean ended = finish();
			RuntimeException error = failed((failure != null) ? failure
					: new IllegalStateException("No reply to an acquisition of '" + this.lock.name() + "'"));
			if (ended) {
				end(error, AcquireResult.ERROR);
			}
			return;
		}
		if (attempt.state() == SemaphoreScripts.Attempt.State.TOO_MANY) {
			boolean ended = finish();
			RuntimeException error = failed(tooMany(attempt));
			if (ended) {
				end(error, AcquireResult.ERROR);
			}
			return;
		}
		if (attempt.state() == SemaphoreScripts.Attempt.State.ACQUIRED) {
			if (!finish()) {
				// Ended by the caller or stopped meanwhile: the permits go back, never reported as acquired.
				this.engine.scripts.release(this.lock.keys(), this.owner);
				return;
			}
			LockHold hold = hold(attempt);
			if (this.parts.holds().handOver(this.result, this.lock.lease(hold), List.of(hold))) {
				report(AcquireResult.ACQUIRED);
			}
			else {
				// Ended by the caller between the two: the caller never sees the lease, the hold was abandoned.
				this.engine.scripts.release(this.lock.keys(), this.owner);
				report(LockHolds.endedByCaller(this.result));
			}
			return;
		}
		long left = (this.waitNanos < 0) ? Long.MAX_VALUE : this.startedNanos + this.waitNanos - System.nanoTime();
		if (this.waitNanos == 0 || left <= 0) {
			if (finish()) {
				end(new SemaphoreNotAcquiredException(this.lock.name(), this.permits, this.waitTime, null),
						AcquireResult.TIMEOUT);
			}
			return;
		}
		try {
			this.wait.again(Math.min(left, attempt.sleepNanos(maxPollNanos())));
		}
		catch (IllegalStateException ex) {
			// The registry stopped between two attempts: the wait is over (PollingWait.again), and reported here.
			this.parts.background().removeOnStop(this.stopHook);
			end(ex, AcquireResult.ERROR);
		}
	}

	private IllegalArgumentException tooMany(SemaphoreScripts.Attempt attempt) {
		try {
			requireWithinTotal(attempt);
		}
		catch (IllegalArgumentException ex) {
			return ex;
		}
		throw new IllegalStateException("Not too many permits: " + attempt);
	}

	private void stopped() {
		if (finish()) {
			end(new IllegalStateException("The semaphore registry stopped while waiting for permits of '"
					+ this.lock.name() + "'"), AcquireResult.ERROR);
		}
	}

	/**
	 * Ends the wait without permits: the caller's stage decides ({@link LockHolds#handOver(CompletableFuture,
	 * Throwable, AcquireResult)}), so that an end of the caller's that came first is reported as the caller saw it.
	 */
	private void end(Throwable failure, AcquireResult outcome) {
		report(this.parts.holds().handOver(this.result, failure, outcome));
	}

	/** @return whether this call ended the wait */
	private boolean finish() {
		if (!this.wait.finish(false)) {
			return false;
		}
		this.parts.background().removeOnStop(this.stopHook);
		return true;
	}

}
