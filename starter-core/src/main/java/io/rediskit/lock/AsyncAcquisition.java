package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;

import io.rediskit.lock.LockListener.AcquireResult;
import io.rediskit.support.RedisFailures;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a {@link Lease} that blocks no thread: each attempt is an asynchronous script
 * call, and while another owner holds the lock the next attempt comes when that lock's release message arrives
 * or, on the scheduler, after the holder's remaining lease or the poll interval, whichever is first, until
 * the wait time runs out. At most one attempt is in flight; a release message that arrives during one makes
 * the next follow at once.
 * <p>
 * Joining and leaving the lock's channel run on the driver's or the scheduler's thread and never block: they
 * queue the subscription and unsubscription, which {@link ReleaseSignals} makes on the registry's executor.
 * An asynchronous waiter is not handed the lock by a local release (only blocked threads are); it tries again
 * when woken. Stopping the registry ends the wait with an {@link IllegalStateException}. Cancelling the returned stage ends the wait
 * (reported as {@link AcquireResult#INTERRUPTED}); no attempt starts after that, an attempt already in flight
 * finishes first, and a lock it took is undone before the wait ends: a grant that arrives after the cancellation
 * is never reported as acquired and never counts as a holder.
 */
final class AsyncAcquisition extends LockWait {

	private static final Log logger = LogFactory.getLog(AsyncAcquisition.class);

	private final SingleNodeEngine engine;

	private final CompletableFuture<Lease> result = new CompletableFuture<>();

	private final Runnable stopHook = this::stopped;

	// The fields below are guarded by this.

	private boolean attempting;

	private boolean wokenWhileAttempting;

	private boolean stopping;

	private boolean cancelled;

	private boolean done;

	private ReleaseSignals.@Nullable Waiter waiter;

	private @Nullable ScheduledFuture<?> timer;

	private LockScripts.@Nullable Attempt lastAttempt;

	AsyncAcquisition(RedisLock lock, SingleNodeEngine engine, String owner, @Nullable Long leaseMillis, Duration waitTime,
			long waitNanos) {
		super(lock, owner, leaseMillis, waitTime, waitNanos);
		this.engine = engine;
	}

	/** @return the lease, completed on the driver's or the scheduler's thread */
	CompletableFuture<Lease> start() {
		synchronized (this) {
			this.attempting = true;
		}
		this.parts.background().onStop(this.stopHook);
		this.result.whenComplete((lease, failure) -> {
			if (this.result.isCancelled()) {
				cancelled();
			}
		});
		attempt();
		return this.result;
	}

	/** Runs the acquire script; the caller has set {@code attempting}. */
	private void attempt() {
		ReleaseSignals.Waiter waiter;
		boolean cancelledMeanwhile;
		synchronized (this) {
			waiter = this.waiter;
			cancelledMeanwhile = this.cancelled;
		}
		if (cancelledMeanwhile) {
			// Cancelled between a wake-up and this attempt: send nothing that could take the lock.
			finish(AcquireResult.INTERRUPTED, null, null);
			return;
		}
		if (waiter != null) {
			waiter.consumeSignal();
		}
		String requestId = this.parts.holds().nextRequestId();
		try {
			this.engine.scripts
				.acquireAsync(this.lock.keys(), this.owner, this.leaseMillis, requestId)
				.whenComplete((reply, failure) -> {
					if (failure != null) {
						failed(requestId, unwrap(failure));
					}
					else {
						replied(reply, requestId);
					}
				});
		}
		catch (RuntimeException ex) {
			failed(requestId, ex);
		}
	}

	private void replied(LockScripts.Attempt reply, String requestId) {
		if (reply.acquired()) {
			boolean cancelledMeanwhile;
			synchronized (this) {
				cancelledMeanwhile = this.cancelled;
			}
			if (cancelledMeanwhile) {
				grantedAfterCancel(requestId);
				return;
			}
			LockHold hold = this.parts.holds().acquired(this.lock, this.owner, reply.fencingToken(), reply.holdCount(),
					this.leaseMillis, this.watchdog);
			finish(AcquireResult.ACQUIRED, hold, null);
			return;
		}
		boolean join;
		synchronized (this) {
			this.lastAttempt = reply;
			join = this.waiter == null && remainingNanos() > 0 && !this.stopping && !this.cancelled;
		}
		if (join) {
			join();
		}
		else {
			rest();
		}
	}

	/**
	 * Joins the lock's channel on the calling thread, the driver's: joining only queues the subscription, which
	 * {@link ReleaseSignals} makes on the registry's executor. A wake-up until then is remembered.
	 */
	private void join() {
		ReleaseSignals.Waiter joined;
		try {
			joined = this.engine.signals.joinAsync(this.lock.keys().released, this.owner, this.leaseMillis,
					this::woken);
		}
		catch (RuntimeException ex) {
			finish(AcquireResult.ERROR, null, ex);
			return;
		}
		synchronized (this) {
			// A release between the attempt and the subscription this join requested woke nobody: the
			// subscription, once made, wakes this waiter to try again.
			this.waiter = joined;
		}
		rest();
	}

	/**
	 * After an attempt found the lock held: ends the wait when the time is up, tries again at once when woken
	 * meanwhile, else sleeps on the scheduler until woken or the sleep ends.
	 */
	private void rest() {
		long remaining = remainingNanos();
		Runnable next;
		synchronized (this) {
			if (this.done) {
				return;
			}
			if (this.stopping) {
				next = () -> finish(AcquireResult.ERROR, null, stoppedException());
			}
			else if (this.cancelled) {
				next = () -> finish(AcquireResult.INTERRUPTED, null, null);
			}
			else if (remaining <= 0) {
				next = () -> finish(AcquireResult.TIMEOUT, null, null);
			}
			else if (this.wokenWhileAttempting) {
				this.wokenWhileAttempting = false;
				next = this::attempt;
			}
			else {
				long sleep = Math.min(remaining, this.engine.spec.maxPollInterval().toNanos());
				if (this.lastAttempt != null) {
					sleep = this.lastAttempt.sleepNanos(sleep);
				}
				try {
					this.timer = this.parts.background().schedule(this::timerFired, sleep);
					this.attempting = false;
					return;
				}
				catch (RuntimeException ex) {
					next = () -> finish(AcquireResult.ERROR, null, ex);
				}
			}
		}
		next.run();
	}

	/** A release message for this waiter, on the driver's thread. */
	private void woken() {
		synchronized (this) {
			if (this.done || this.stopping || this.cancelled) {
				return;
			}
			if (this.attempting) {
				this.wokenWhileAttempting = true;
				return;
			}
			if (this.timer != null) {
				this.timer.cancel(false);
				this.timer = null;
			}
			this.attempting = true;
		}
		attempt();
	}

	private void timerFired() {
		synchronized (this) {
			if (this.done || this.attempting) {
				return;
			}
			this.timer = null;
			this.attempting = true;
		}
		attempt();
	}

	/** The caller cancelled the stage: no more attempts. */
	private void cancelled() {
		boolean now;
		synchronized (this) {
			if (this.done) {
				return;
			}
			this.cancelled = true;
			// An attempt in flight finishes the wait when its reply comes, releasing a lock it took.
			now = !this.attempting;
		}
		if (now) {
			finish(AcquireResult.INTERRUPTED, null, null);
		}
	}

	/**
	 * The lock was granted to an attempt the caller had cancelled while it was in flight: nobody holds it, so it
	 * is undone (releasing it to the next waiter) before the wait ends as interrupted.
	 */
	private void grantedAfterCancel(String requestId) {
		try {
			this.engine.scripts.undo(this.lock.keys(), this.owner, this.leaseMillis, requestId)
				.whenComplete((left, failure) -> {
					if (failure != null) {
						undoFailed(failure);
					}
					finish(AcquireResult.INTERRUPTED, null, null);
				});
		}
		catch (RuntimeException ex) {
			undoFailed(ex);
			finish(AcquireResult.INTERRUPTED, null, null);
		}
	}

	/** The registry stopped: its scheduler and subscription with it. */
	private void stopped() {
		boolean now;
		synchronized (this) {
			this.stopping = true;
			// An attempt in flight finishes the wait when its reply comes, so that a lock it took is not lost.
			now = !this.attempting;
		}
		if (now) {
			finish(AcquireResult.ERROR, null, stoppedException());
		}
	}

	private IllegalStateException stoppedException() {
		return new IllegalStateException("The lock registry stopped while waiting for lock '" + this.lock.getName()
				+ "'");
	}

	/** The outcome of the attempt is unknown: undo it in the background, should it have taken effect. */
	private void failed(String requestId, Throwable failure) {
		try {
			this.engine.scripts.undo(this.lock.keys(), this.owner, this.leaseMillis, requestId)
				.whenComplete((left, undoFailure) -> {
					if (undoFailure != null) {
						undoFailed(undoFailure);
					}
				});
		}
		catch (RuntimeException ex) {
			failure.addSuppressed(ex);
		}
		if (RedisFailures.isUnavailable(failure)) {
			this.parts.outages().warn(failure);
		}
		finish(AcquireResult.ERROR, null, failure);
	}

	private void undoFailed(Throwable failure) {
		if (logger.isDebugEnabled()) {
			logger.debug("Could not undo an acquisition of lock '" + this.lock.getName() + "' nobody holds; its lease"
					+ " will end it", failure);
		}
	}

	/**
	 * Ends the acquisition once: leaves the channel, reports and completes the stage.
	 * @param hold the hold when acquired
	 * @param failure the failure, or {@code null} for a result
	 */
	private void finish(AcquireResult outcome, @Nullable LockHold hold, @Nullable Throwable failure) {
		ReleaseSignals.Waiter waiter;
		synchronized (this) {
			if (this.done) {
				return;
			}
			this.done = true;
			waiter = this.waiter;
			this.waiter = null;
			if (this.timer != null) {
				this.timer.cancel(false);
				this.timer = null;
			}
		}
		this.parts.background().removeOnStop(this.stopHook);
		if (waiter != null) {
			// Leaving only queues an unsubscription when the waiter was the channel's last.
			this.engine.signals.leave(waiter);
		}
		report(outcome);
		if (hold != null) {
			Lease lease = this.lock.lease(hold);
			if (!this.result.complete(lease)) {
				// The caller cancelled the stage: nobody will close this lease, so release it now.
				lease.releaseAsync();
			}
		}
		else if (failure != null) {
			this.result.completeExceptionally(failure);
		}
		else {
			this.result.completeExceptionally(notAcquired());
		}
	}

	private static Throwable unwrap(Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

}
