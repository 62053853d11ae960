package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Supplier;

import io.rediskit.lock.LockListener.AcquireResult;
import io.rediskit.support.RedisFailures;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a member of the lock family whose every attempt is one script ({@link FairEngine},
 * {@link ReadWriteEngine}), for a thread or a lease alike: attempt, and while the member says no, sleep on the
 * registry's scheduler until the lock's channel wakes this owner, the holder's lease ends or the member's longest
 * sleep passes, until the wait time runs out. No thread waits inside it: a blocking caller awaits its stage
 * ({@link #await(boolean)}), so the sync and async forms are one implementation.
 * <p>
 * Each attempt also renews what the member keeps for a waiter in Redis (a fair lock's place in line, a waiting
 * writer's place), which is why the longest sleep is the member's, shorter than that place lasts. A wait that
 * ends without the lock (time out, cancelled, registry stopped, failed) tells the member to {@link
 * Steps#leave leave}: the place goes, and a hold an attempt took after a cancellation or with its reply lost is
 * given back. A hold is never reported after a cancellation.
 */
final class MemberWait extends LockWait {

	private static final Log logger = LogFactory.getLog(MemberWait.class);

	/** What a member's engine does for a wait. */
	interface Steps {

		/**
		 * One attempt at a first hold; renews the owner's place where the member keeps one.
		 * @return acquired with the fencing token, or not with the ms until the holder's lease ends ({@code -1}
		 * when that does not tell when to try again)
		 */
		CompletionStage<LockScripts.Attempt> attempt(RedisLock lock, String owner, long leaseMillis,
				String requestId);

		/** The owner waits no more and holds no first hold: its place goes, a hold an attempt took is freed. */
		CompletionStage<?> leave(RedisLock lock, String owner);

		/** @return the longest sleep between two attempts */
		long maxSleepNanos();

		/** @return the local waiters and the lock channels' subscription */
		ReleaseSignals signals();

	}

	private final Steps steps;

	private final CompletableFuture<@Nullable LockHold> result = new CompletableFuture<>();

	private final Runnable stopHook = this::stopped;

	// The fields below are guarded by this.

	private boolean attempting;

	private boolean wokenWhileAttempting;

	private boolean stopping;

	private boolean cancelled;

	private boolean done;

	private ReleaseSignals.@Nullable Waiter waiter;

	private @Nullable ScheduledFuture<?> timer;

	private long holderTtlMillis = -1;

	MemberWait(RedisLock lock, Steps steps, String owner, @Nullable Long leaseMillis, Duration waitTime,
			long waitNanos) {
		super(lock, owner, leaseMillis, waitTime, waitNanos);
		this.steps = steps;
	}

	/**
	 * Waits on the calling thread.
	 * @param interruptible whether an interrupt ends the wait, else it is remembered and restored
	 * @return the hold, or {@code null} when the wait ran out
	 * @throws InterruptedException if interruptible and interrupted; nothing is held then
	 */
	@Nullable LockHold await(boolean interruptible) throws InterruptedException {
		if (interruptible && Thread.interrupted()) {
			report(AcquireResult.INTERRUPTED);
			throw new InterruptedException("Interrupted before acquiring lock '" + this.lock.getName() + "'");
		}
		boolean interrupted = !interruptible && Thread.interrupted();
		CompletableFuture<@Nullable LockHold> outcome = start();
		try {
			while (true) {
				try {
					return outcome.get();
				}
				catch (InterruptedException ex) {
					if (!interruptible) {
						interrupted = true;
						continue;
					}
					cancel();
					// Granted before the cancellation took effect: the caller holds it, with the interrupt pending.
					LockHold late = settled(outcome);
					if (late != null) {
						interrupted = true;
						return late;
					}
					throw ex;
				}
				catch (ExecutionException ex) {
					throw rethrowable(ex.getCause());
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Waits without blocking the calling thread.
	 * @return the lease, or exceptionally with {@link LockNotAcquiredException} when the wait ran out; cancelling
	 * it ends the wait, and a lease granted meanwhile is released
	 */
	CompletableFuture<Lease> startAsync() {
		CompletableFuture<Lease> lease = new CompletableFuture<>();
		start().whenComplete((hold, failure) -> {
			if (failure != null) {
				lease.completeExceptionally(failure);
			}
			else if (hold == null) {
				lease.completeExceptionally(notAcquired());
			}
			else {
				Lease granted = this.lock.lease(hold);
				if (!lease.complete(granted)) {
					granted.releaseAsync();
				}
			}
		});
		lease.whenComplete((granted, failure) -> {
			if (lease.isCancelled()) {
				cancel();
			}
		});
		return lease;
	}

	private CompletableFuture<@Nullable LockHold> start() {
		synchronized (this) {
			this.attempting = true;
		}
		try {
			this.parts.background().onStop(this.stopHook);
		}
		catch (RuntimeException ex) {
			finish(AcquireResult.ERROR, null, ex);
			return this.result;
		}
		attempt();
		return this.result;
	}

	/** Runs one attempt; the caller has set {@code attempting}. */
	private void attempt() {
		ReleaseSignals.Waiter current;
		boolean cancelledMeanwhile;
		synchronized (this) {
			current = this.waiter;
			cancelledMeanwhile = this.cancelled;
		}
		if (cancelledMeanwhile) {
			end(AcquireResult.INTERRUPTED, null);
			return;
		}
		if (current != null) {
			current.consumeSignal();
		}
		CompletionStage<LockScripts.Attempt> call;
		try {
			call = this.steps.attempt(this.lock, this.owner, this.leaseMillis, this.parts.holds().nextRequestId());
		}
		catch (RuntimeException ex) {
			failed(ex);
			return;
		}
		call.whenComplete((reply, failure) -> {
			if (failure != null) {
				failed(unwrap(failure));
			}
			else {
				replied(reply);
			}
		});
	}

	private void replied(LockScripts.Attempt reply) {
		if (reply.acquired()) {
			boolean cancelledMeanwhile;
			synchronized (this) {
				cancelledMeanwhile = this.cancelled;
			}
			if (cancelledMeanwhile) {
				// Nobody will hold it: give it back before the wait ends.
				end(AcquireResult.INTERRUPTED, null);
				return;
			}
			LockHold hold = this.parts.holds().acquired(this.lock, this.owner, reply.fencingToken(), reply.holdCount(),
					this.leaseMillis, this.watchdog);
			finish(AcquireResult.ACQUIRED, hold, null);
			return;
		}
		boolean join;
		synchronized (this) {
			this.holderTtlMillis = reply.ttlMillis();
			join = this.waiter == null && remainingNanos() > 0 && !this.stopping && !this.cancelled;
		}
		if (join) {
			ReleaseSignals.Waiter joined;
			try {
				joined = this.steps.signals().joinAsync(this.lock.keys().released, this.owner, this.leaseMillis,
						this::woken);
			}
			catch (RuntimeException ex) {
				end(AcquireResult.ERROR, ex);
				return;
			}
			synchronized (this) {
				this.waiter = joined;
			}
		}
		rest();
	}

	/** After an attempt that did not acquire: ends the wait, tries again at once when woken, or sleeps. */
	private void rest() {
		long remaining = remainingNanos();
		Runnable next;
		synchronized (this) {
			if (this.done) {
				return;
			}
			if (this.stopping) {
				next = () -> end(AcquireResult.ERROR, stoppedException());
			}
			else if (this.cancelled) {
				next = () -> end(AcquireResult.INTERRUPTED, null);
			}
			else if (remaining <= 0) {
				next = () -> end(AcquireResult.TIMEOUT, null);
			}
			else if (this.wokenWhileAttempting) {
				this.wokenWhileAttempting = false;
				next = this::attempt;
			}
			else {
				long sleep = Math.min(remaining, this.steps.maxSleepNanos());
				if (this.holderTtlMillis >= 0) {
					// The holder's lease ends publishing nothing: try again when it does.
					sleep = Math.min(sleep, Duration.ofMillis(Math.max(this.holderTtlMillis, 1)).toNanos());
				}
				try {
					this.timer = this.parts.background().schedule(this::timerFired, sleep);
					this.attempting = false;
					return;
				}
				catch (RuntimeException ex) {
					next = () -> end(AcquireResult.ERROR, ex);
				}
			}
		}
		next.run();
	}

	/** The lock's channel woke this owner, on the driver's thread. */
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

	/** Ends the wait without a hold; an attempt in flight ends it when its reply comes. */
	void cancel() {
		boolean now;
		synchronized (this) {
			if (this.done || this.cancelled) {
				return;
			}
			this.cancelled = true;
			now = !this.attempting;
		}
		if (now) {
			end(AcquireResult.INTERRUPTED, null);
		}
	}

	private void stopped() {
		boolean now;
		synchronized (this) {
			this.stopping = true;
			now = !this.attempting;
		}
		if (now) {
			end(AcquireResult.ERROR, stoppedException());
		}
	}

	private IllegalStateException stoppedException() {
		return new IllegalStateException("The registry stopped while waiting for lock '" + this.lock.getName() + "'");
	}

	/** The outcome of an attempt is unknown: leave, which undoes it should it have taken effect. */
	private void failed(Throwable failure) {
		if (RedisFailures.isUnavailable(failure)) {
			this.parts.outages().warn(failure);
		}
		end(AcquireResult.ERROR, failure);
	}

	/**
	 * Ends the wait without a hold: leaves the member's line, then finishes once the leave is done, so that a
	 * wait that ended keeps nobody out (a write lock's single attempt must not hold up the next reader). After a
	 * failure the leave is sent but not awaited: it undoes an attempt of unknown outcome when Redis answers
	 * again, and the caller hears of the failure after one command timeout, not two.
	 */
	private void end(AcquireResult outcome, @Nullable Throwable failure) {
		CompletionStage<?> left;
		try {
			left = this.steps.leave(this.lock, this.owner);
		}
		catch (RuntimeException ex) {
			left = CompletableFuture.failedFuture(ex);
		}
		if (failure != null) {
			left.whenComplete((done, leaveFailure) -> leaveFailed(leaveFailure));
			finish(outcome, null, failure);
			return;
		}
		left.whenComplete((done, leaveFailure) -> {
			leaveFailed(leaveFailure);
			finish(outcome, null, null);
		});
	}

	private void leaveFailed(@Nullable Throwable failure) {
		if (failure != null && logger.isDebugEnabled()) {
			logger.debug("Could not leave the wait for lock '" + this.lock.getName()
					+ "'; what it kept ends with its place or lease", failure);
		}
	}

	private void finish(AcquireResult outcome, @Nullable LockHold hold, @Nullable Throwable failure) {
		ReleaseSignals.Waiter joined;
		synchronized (this) {
			if (this.done) {
				return;
			}
			this.done = true;
			joined = this.waiter;
			this.waiter = null;
			if (this.timer != null) {
				this.timer.cancel(false);
				this.timer = null;
			}
		}
		this.parts.background().removeOnStop(this.stopHook);
		if (joined != null) {
			this.steps.signals().leave(joined);
		}
		report(outcome);
		if (failure != null) {
			this.result.completeExceptionally(failure);
		}
		else {
			this.result.complete(hold);
		}
	}

	/**
	 * A re-entry of a hold the owner has, on the calling thread: the member's call sets the stored hold count one
	 * higher. A hold the member no longer has was lost.
	 * @param call the member's count call: the holds now, or {@code -1} when the owner no longer holds it
	 * @return the hold, counted once more
	 * @throws LockLeaseLostException when the hold was lost
	 */
	static LockHold reenter(LockHold current, Supplier<CompletionStage<Long>> call) {
		RedisLock lock = current.lock;
		long started = System.nanoTime();
		long count;
		try {
			count = LockScripts.uninterruptibly(() -> LockScripts.await(call.get()));
		}
		catch (RuntimeException ex) {
			if (RedisFailures.isUnavailable(ex)) {
				lock.parts().outages().warn(ex);
			}
			lock.report(AcquireResult.ERROR, started);
			throw ex;
		}
		if (count < 1) {
			lock.parts().holds().markLost(current);
			lock.report(AcquireResult.ERROR, started);
			throw new LockLeaseLostException(lock.getName(), current.fencingToken);
		}
		LockHold hold = lock.parts().holds().acquired(lock, current.owner, current.fencingToken,
				Math.max(2, (int) count), current.leaseMillis, current.watchdog);
		lock.report(AcquireResult.ACQUIRED, started);
		return hold;
	}

	private static @Nullable LockHold settled(CompletableFuture<@Nullable LockHold> outcome) {
		while (true) {
			try {
				return outcome.get();
			}
			catch (InterruptedException ex) {
				// Only an attempt in flight is left: its reply ends the wait.
			}
			catch (ExecutionException ex) {
				return null;
			}
		}
	}

	private static RuntimeException rethrowable(@Nullable Throwable cause) {
		if (cause instanceof RuntimeException runtime) {
			return runtime;
		}
		return new CompletionException(cause);
	}

	private static Throwable unwrap(Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

}
