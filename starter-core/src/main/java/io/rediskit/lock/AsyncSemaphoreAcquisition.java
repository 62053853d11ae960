package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

import io.rediskit.lock.LockListener.AcquireResult;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of semaphore permits without a thread: attempts are asynchronous calls, and between them the
 * wait is a release message ({@link ReleaseSignals#joinAsync}) or a timer on the registry's scheduler (the
 * earliest lease's end, {@code maxPollInterval}, the wait's end), whichever comes first. At most one attempt is
 * in flight; a wake-up during an attempt starts another one after it.
 * <p>
 * Cancelling the returned stage ends the wait (reported as {@link AcquireResult#INTERRUPTED}); permits an attempt
 * in flight takes afterwards are released at once. Stopping the registry ends the wait with
 * {@link IllegalStateException}.
 */
final class AsyncSemaphoreAcquisition extends SemaphoreAcquisition {

	private final CompletableFuture<Lease> result = new CompletableFuture<>();

	private final Runnable stopHook = this::stopped;

	// Guarded by this.

	private boolean attempting;

	private boolean wokenWhileAttempting;

	private boolean done;

	private ReleaseSignals.@Nullable Waiter waiter;

	private @Nullable ScheduledFuture<?> timer;

	AsyncSemaphoreAcquisition(RedisSemaphore semaphore, String owner, int permits, @Nullable Long leaseMillis,
			Duration waitTime, long waitNanos) {
		super(semaphore, owner, permits, leaseMillis, waitTime, waitNanos);
	}

	CompletableFuture<Lease> start() {
		synchronized (this) {
			this.attempting = true;
		}
		this.parts.background().onStop(this.stopHook);
		this.result.whenComplete((lease, failure) -> {
			if (this.result.isCancelled() && finish()) {
				this.lock.report(AcquireResult.INTERRUPTED, this.startedNanos);
			}
		});
		attempt();
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
		if (failure != null || attempt == null) {
			RuntimeException error = failed((failure != null) ? failure
					: new IllegalStateException("No reply to an acquisition of '" + this.lock.getName() + "'"));
			if (finish()) {
				this.result.completeExceptionally(error);
			}
			return;
		}
		if (attempt.state() == SemaphoreScripts.Attempt.State.TOO_MANY) {
			RuntimeException error = failed(tooMany(attempt));
			if (finish()) {
				this.result.completeExceptionally(error);
			}
			return;
		}
		if (attempt.state() == SemaphoreScripts.Attempt.State.ACQUIRED) {
			if (isDone()) {
				// Cancelled or stopped meanwhile: the permits go back, never reported as acquired.
				this.engine.scripts.release(this.lock.keys(), this.owner);
				return;
			}
			Lease lease = this.lock.lease(acquired(attempt));
			finish();
			if (!this.result.complete(lease)) {
				lease.releaseAsync();
			}
			return;
		}
		long left = (this.waitNanos < 0) ? Long.MAX_VALUE : this.startedNanos + this.waitNanos - System.nanoTime();
		if (this.waitNanos == 0 || left <= 0) {
			if (finish()) {
				this.lock.report(AcquireResult.TIMEOUT, this.startedNanos);
				this.result.completeExceptionally(new SemaphoreNotAcquiredException(this.lock.getName(),
						this.permits, this.waitTime, null));
			}
			return;
		}
		waitFor(Math.min(left, attempt.sleepNanos(maxPollNanos())));
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

	private void waitFor(long nanos) {
		boolean again;
		synchronized (this) {
			if (this.done) {
				return;
			}
			if (this.waiter == null) {
				this.waiter = this.engine.signals.joinAsync(this.lock.keys().released, this.owner, this.leaseMillis,
						this::wake);
			}
			try {
				this.timer = this.parts.background().schedule(this::wake, nanos);
			}
			catch (IllegalStateException ex) {
				// The registry stopped between two attempts.
				this.done = true;
				cleanUp();
				this.result.completeExceptionally(ex);
				return;
			}
			again = this.wokenWhileAttempting || this.waiter.consumeSignal();
			this.wokenWhileAttempting = false;
			this.attempting = again;
		}
		if (again) {
			cancelTimer();
			attempt();
		}
	}

	/** A release message or the timer: attempt now, or once the attempt in flight has answered. */
	private void wake() {
		synchronized (this) {
			if (this.done) {
				return;
			}
			if (this.attempting) {
				this.wokenWhileAttempting = true;
				return;
			}
			this.attempting = true;
			if (this.waiter != null) {
				this.waiter.consumeSignal();
			}
		}
		cancelTimer();
		attempt();
	}

	private void cancelTimer() {
		ScheduledFuture<?> current;
		synchronized (this) {
			current = this.timer;
			this.timer = null;
		}
		if (current != null) {
			current.cancel(false);
		}
	}

	private void stopped() {
		if (finish()) {
			this.lock.report(AcquireResult.INTERRUPTED, this.startedNanos);
			this.result.completeExceptionally(new IllegalStateException(
					"The semaphore registry stopped while waiting for permits of '" + this.lock.getName() + "'"));
		}
	}

	private synchronized boolean isDone() {
		return this.done;
	}

	/** @return whether this call ended the wait */
	private boolean finish() {
		synchronized (this) {
			if (this.done) {
				return false;
			}
			this.done = true;
			cleanUp();
		}
		this.parts.background().removeOnStop(this.stopHook);
		return true;
	}

	// Called under this.
	private void cleanUp() {
		if (this.timer != null) {
			this.timer.cancel(false);
			this.timer = null;
		}
		if (this.waiter != null) {
			this.engine.signals.leave(this.waiter);
			this.waiter = null;
		}
	}

}
