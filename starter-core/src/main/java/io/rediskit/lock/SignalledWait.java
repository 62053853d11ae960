package io.rediskit.lock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;

import io.micrometer.observation.Observation;
import io.rediskit.support.CallerEnds;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.ReleaseSignals;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A wait for a lock on one deployment that blocks no thread, written once for every engine whose attempt is one
 * script call ({@link AsyncAcquisition} for the lock, {@link MemberWait} for the fair and read-write locks): attempt,
 * and while the lock is held, sleep on the registry's scheduler until the lock's channel wakes this owner, the
 * holder's lease ends or the longest sleep passes, then attempt again, until the wait time runs out. At most one
 * attempt is in flight; a wake-up that arrives during one makes the next follow at once.
 * <p>
 * Joining and leaving the lock's channel run on the driver's or the scheduler's thread and never block: they queue
 * the subscription and unsubscription, which {@link ReleaseSignals} makes on the registry's executor. Stopping the
 * registry ends the wait with an {@link IllegalStateException}. The caller ending its stage itself, whichever way
 * (a cancel, {@code complete}, its own deadline through {@code orTimeout}: {@link CallerEnds#whenCallerEnds}), ends
 * the wait at once, reported as the caller's stage saw it ({@link LockHolds#endedByCaller}: a timeout for its own
 * deadline, else {@link AcquireResult#INTERRUPTED}); no attempt starts after that, an attempt already in flight
 * finishes first, and a hold it took is given back before the wait ends: a grant that arrives after the caller's
 * end is never reported as acquired and never counts as a holder. The caller's end can come at any moment, also
 * while a grant is being handed over, and nothing refuses it: whether the caller got the lease is decided by its
 * stage taking it ({@link LockHolds#handOver}), and only then is the wait reported as acquired; a grant the
 * caller's end beat is given back as one answered after it, with no release reported for it. A wait that ends
 * without a grant (it ran out, an attempt failed, the registry stopped) is handed to the stage the same way: a
 * caller's end that beat it is reported as the caller saw it, never as the wait's timeout or error.
 * <p>
 * What a wait that ends without a hold gives back is the subclass's ({@link #giveBack}): the lock undoes an
 * attempt that took it, a member also leaves the place it keeps for a waiter.
 */
abstract class SignalledWait extends LockWait {

	private static final Log logger = LogFactory.getLog(SignalledWait.class);

	private final CompletableFuture<@Nullable LockHold> result = new CompletableFuture<>();

	private final Runnable stopHook = this::stopped;

	// The fields below are guarded by this.

	private boolean attempting;

	private boolean wokenWhileAttempting;

	private boolean stopping;

	private boolean cancelled;

	private boolean done;

	/** Whether the stop hook was registered: a wait whose first attempt acquired on the caller's thread never is. */
	private boolean hooked;

	private ReleaseSignals.@Nullable Waiter waiter;

	private @Nullable ScheduledFuture<?> timer;

	private LockScripts.@Nullable Attempt lastAttempt;

	/**
	 * The asynchronous caller's stage, which a grant is handed to ({@link #startAsync()}); {@code null} for a
	 * blocking caller, whom nothing but the wait itself cancels. Set before the wait starts.
	 */
	private @Nullable CompletableFuture<Lease> caller;

	SignalledWait(RedisLock lock, String owner, @Nullable Long leaseMillis, Duration waitTime, long waitNanos) {
		super(lock, owner, leaseMillis, waitTime, waitNanos);
	}

	/**
	 * One attempt at a first hold.
	 * @return acquired with the fencing token, or not with the ms until the holder's lease ends ({@code -1} when
	 * that does not tell when to try again)
	 */
	abstract CompletionStage<LockScripts.Attempt> attempt(String requestId);

	/**
	 * What the wait gives back when it ends without a hold.
	 * @param requestId the attempt that took the lock after a cancellation, or whose outcome is unknown (it
	 * failed); {@code null} when no attempt took it
	 * @return the call that gives it back, or {@code null} when there is nothing to give back
	 */
	abstract @Nullable CompletionStage<?> giveBack(@Nullable String requestId);

	/** @return the longest sleep between two attempts */
	abstract long maxSleepNanos();

	/** @return the local waiters and the lock channels' subscription */
	abstract ReleaseSignals signals();

	/**
	 * Waits without blocking the calling thread.
	 * @return the lease, or exceptionally with {@link LockNotAcquiredException} when the wait ran out; ending it
	 * (a cancel, a completion, a deadline of the caller's) ends the wait, and a grant it did not take is given back
	 */
	final CompletableFuture<Lease> startAsync() {
		CompletableFuture<Lease> lease = new CompletableFuture<>();
		this.caller = lease;
		start().whenComplete((hold, failure) -> {
			// The wait's end was handed to the stage already (finish), unless its bookkeeping threw first.
			if (!lease.isDone()) {
				lease.completeExceptionally((failure != null) ? failure : notAcquired());
			}
		});
		// The wait's own hand-over completes the stage too: it is done then, or its attempt in flight decides.
		CallerEnds.whenCallerEnds(lease, this::cancel);
		return lease;
	}

	/**
	 * Starts the wait.
	 * @return the hold, or {@code null} when the wait ran out; completed on the driver's or the scheduler's thread
	 */
	final CompletableFuture<@Nullable LockHold> start() {
		begin();
		attempt();
		return this.result;
	}

	/**
	 * Starts the wait for a caller that blocks until it ends: the first attempt is sent and awaited on the calling
	 * thread, so that an acquisition that needs no wait takes its hold there, not on the driver's one I/O thread
	 * that every caller shares, and without the stages of an attempt in flight. A first attempt that did not
	 * acquire, or failed, goes on as its reply would after {@link #start()}.
	 * @return as {@link #start()}; completed already when the first attempt acquired or failed
	 */
	final CompletableFuture<@Nullable LockHold> startBlocking() {
		String requestId = this.parts.holds().nextRequestId();
		LockScripts.Attempt reply;
		try {
			CompletionStage<LockScripts.Attempt> call;
			try (Observation.Scope scope = openScope()) {
				call = attempt(requestId);
			}
			reply = LockScripts.await(call);
		}
		catch (RuntimeException ex) {
			begin();
			failed(requestId, unwrap(ex));
			return this.result;
		}
		if (reply.acquired()) {
			// Nothing can have cancelled or stopped a wait that has not begun: the hold is the caller's.
			LockHold hold = this.parts.holds().acquired(this.lock, this.owner, reply.fencingToken(), reply.holdCount(),
					this.leaseMillis, this.watchdog);
			finish(AcquireResult.ACQUIRED, hold, null);
			return this.result;
		}
		begin();
		replied(reply, requestId);
		return this.result;
	}

	/** The wait begins: an attempt is in flight (or its reply in hand), and stopping the registry ends it. */
	private void begin() {
		synchronized (this) {
			this.attempting = true;
			this.hooked = true;
		}
		this.parts.background().onStop(this.stopHook);
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
			// Cancelled between a wake-up and this attempt: send nothing that could take the lock.
			end(AcquireResult.INTERRUPTED, null, null);
			return;
		}
		if (current != null) {
			current.consumeSignal();
		}
		String requestId = this.parts.holds().nextRequestId();
		CompletionStage<LockScripts.Attempt> call;
		try (Observation.Scope scope = openScope()) {
			call = attempt(requestId);
		}
		catch (RuntimeException ex) {
			failed(requestId, ex);
			return;
		}
		call.whenComplete((reply, failure) -> {
			if (failure != null) {
				failed(requestId, unwrap(failure));
			}
			else {
				replied(reply, requestId);
			}
		});
	}

	private void replied(LockScripts.Attempt reply, String requestId) {
		if (reply.acquired()) {
			boolean cancelledMeanwhile;
			synchronized (this) {
				cancelledMeanwhile = this.cancelled;
			}
			if (cancelledMeanwhile) {
				// Nobody will hold it: give it back before the wait ends.
				end(AcquireResult.INTERRUPTED, null, requestId);
				return;
			}
			LockHold hold = this.parts.holds().acquired(this.lock, this.owner, reply.fencingToken(), reply.holdCount(),
					this.leaseMillis, this.watchdog);
			granted(hold, requestId);
			return;
		}
		boolean join;
		synchronized (this) {
			this.lastAttempt = reply;
			join = this.waiter == null && remainingNanos() > 0 && !this.stopping && !this.cancelled;
		}
		if (join) {
			ReleaseSignals.Waiter joined;
			try {
				joined = signals().joinAsync(this.lock.keys().released, this.owner, this.leaseMillis, this::woken);
			}
			catch (RuntimeException | Error ex) {
				// Runs in the attempt's callback: anything left to escape would be swallowed by its stage and the
				// wait would never end.
				end(AcquireResult.ERROR, ex, null);
				return;
			}
			synchronized (this) {
				// A release between the attempt and the subscription this join requested woke nobody: the
				// subscription, once made, wakes this waiter to try again.
				this.waiter = joined;
			}
		}
		rest();
	}

	/**
	 * An attempt took the lock: the wait is acquired when its caller takes the hold. An asynchronous caller may have
	 * ended its stage since the reply's check (on its own thread): then the hold was abandoned, and what the attempt
	 * took is given back as after a caller's end that came before the reply, reported as the caller saw it. The attempt is still in flight for
	 * {@link #cancel()}, so the cancel's callback leaves the end to this.
	 */
	private void granted(LockHold hold, String requestId) {
		CompletableFuture<Lease> stage = this.caller;
		if (stage == null || this.parts.holds().handOver(stage, this.lock.lease(hold), List.of(hold))) {
			finish(AcquireResult.ACQUIRED, hold, null);
			return;
		}
		end(AcquireResult.INTERRUPTED, null, requestId);
	}

	/**
	 * After an attempt that did not acquire: ends the wait when the time is up, tries again at once when woken
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
				next = () -> end(AcquireResult.ERROR, stoppedException(), null);
			}
			else if (this.cancelled) {
				next = () -> end(AcquireResult.INTERRUPTED, null, null);
			}
			else if (remaining <= 0) {
				next = () -> end(AcquireResult.TIMEOUT, null, null);
			}
			else if (this.wokenWhileAttempting) {
				this.wokenWhileAttempting = false;
				next = this::attempt;
			}
			else {
				long sleep = Math.min(remaining, maxSleepNanos());
				if (this.lastAttempt != null) {
					// The holder's lease ends publishing nothing: try again when it does.
					sleep = this.lastAttempt.sleepNanos(sleep);
				}
				try {
					this.timer = this.parts.background().schedule(this::timerFired, sleep);
					this.attempting = false;
					return;
				}
				catch (RuntimeException ex) {
					next = () -> end(AcquireResult.ERROR, ex, null);
				}
			}
		}
		next.run();
	}

	/** The lock's channel woke this owner, on the driver's thread. */
	private void woken() {
		ScheduledFuture<?> sleep;
		synchronized (this) {
			if (this.done || this.stopping || this.cancelled) {
				return;
			}
			if (this.attempting) {
				this.wokenWhileAttempting = true;
				return;
			}
			sleep = this.timer;
			this.timer = null;
			this.attempting = true;
		}
		try {
			if (sleep != null) {
				sleep.cancel(false);
			}
		}
		finally {
			// The sleep is over either way: should cancelling it throw, the wait must still go on.
			attempt();
		}
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

	/**
	 * The caller ended its stage: ends the wait without a hold, at once between two attempts (the timer cancelled,
	 * the channel left); an attempt in flight ends it when its reply comes, giving back what it took. Does nothing
	 * once the wait ended, or while the attempt in flight hands its grant over (that attempt ends the wait).
	 */
	final void cancel() {
		boolean now;
		synchronized (this) {
			if (this.done || this.cancelled) {
				return;
			}
			this.cancelled = true;
			now = !this.attempting;
		}
		if (now) {
			end(AcquireResult.INTERRUPTED, null, null);
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
			end(AcquireResult.ERROR, stoppedException(), null);
		}
	}

	private IllegalStateException stoppedException() {
		return new IllegalStateException("The lock registry stopped while waiting for lock '" + this.lock.name()
				+ "'");
	}

	/** The outcome of an attempt is unknown: give back what it may have taken, should it have taken effect. */
	private void failed(String requestId, Throwable failure) {
		if (RedisFailures.isUnavailable(failure)) {
			this.parts.outages().warn(failure);
		}
		end(AcquireResult.ERROR, failure, requestId);
	}

	/**
	 * Ends the wait without a hold: gives back what the subclass says, then finishes once that is done, so that a
	 * wait that ended keeps nobody out (a write lock's single attempt must not hold up the next reader). After a
	 * failure the give-back is sent but not awaited: it undoes an attempt of unknown outcome when Redis answers
	 * again, and the caller hears of the failure after one command timeout, not two.
	 * @param requestId the attempt to give back, if any (see {@link #giveBack})
	 */
	private void end(AcquireResult outcome, @Nullable Throwable failure, @Nullable String requestId) {
		CompletionStage<?> sent;
		try {
			sent = giveBack(requestId);
		}
		catch (RuntimeException ex) {
			if (failure != null) {
				failure.addSuppressed(ex);
			}
			else {
				giveBackFailed(ex);
			}
			finish(outcome, null, failure);
			return;
		}
		if (sent == null || failure != null) {
			if (sent != null) {
				sent.whenComplete((given, giveBackFailure) -> giveBackFailed(giveBackFailure));
			}
			finish(outcome, null, failure);
			return;
		}
		sent.whenComplete((given, giveBackFailure) -> {
			giveBackFailed(giveBackFailure);
			finish(outcome, null, null);
		});
	}

	private void giveBackFailed(@Nullable Throwable failure) {
		if (failure != null && logger.isDebugEnabled()) {
			logger.debug("Could not give back what the wait for lock '" + this.lock.name() + "' took or kept;"
					+ " its lease or place ends it", failure);
		}
	}

	/**
	 * Ends the wait once: leaves the channel, reports and completes the stage.
	 * @param hold the hold when acquired
	 * @param failure the failure, or {@code null} for a result
	 */
	private void finish(AcquireResult outcome, @Nullable LockHold hold, @Nullable Throwable failure) {
		ReleaseSignals.Waiter joined;
		ScheduledFuture<?> sleep;
		boolean hookedStop;
		synchronized (this) {
			if (this.done) {
				return;
			}
			this.done = true;
			hookedStop = this.hooked;
			joined = this.waiter;
			this.waiter = null;
			sleep = this.timer;
			this.timer = null;
		}
		try {
			if (sleep != null) {
				sleep.cancel(false);
			}
			if (hookedStop) {
				this.parts.background().removeOnStop(this.stopHook);
			}
			if (joined != null) {
				// Leaving only queues an unsubscription when the waiter was the channel's last.
				signals().leave(joined);
			}
			CompletableFuture<Lease> stage = this.caller;
			if (stage != null && hold == null) {
				// The caller's stage decides, as for a grant: an end of the caller's that came first is reported as
				// the caller saw it.
				outcome = this.parts.holds().handOver(stage, (failure != null) ? failure : notAcquired(), outcome);
			}
			report(outcome);
		}
		finally {
			// Whatever the bookkeeping threw (on the driver's thread, where nobody would hear it), the caller hears
			// the outcome: a wait that never completes would hold its caller for ever.
			if (failure != null) {
				this.result.completeExceptionally(failure);
			}
			else {
				this.result.complete(hold);
			}
		}
	}

	private static Throwable unwrap(Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

}
