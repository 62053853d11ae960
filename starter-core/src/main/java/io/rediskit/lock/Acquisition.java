package io.rediskit.lock;

import io.micrometer.observation.Observation;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.ReleaseSignals;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One blocking acquisition of a {@link RedisLock}: attempt, and while another owner holds the lock, wait for a
 * release message, a local hand-off, the end of the holder's lease or the poll interval, whichever comes
 * first, until the wait time runs out.
 * <p>
 * A thread that finds local threads already waiting for the lock queues behind them rather than racing them,
 * and is handed the lock in turn. An attempt that fails with its outcome unknown is undone in the background
 * (should it have taken effect), so the caller hears of the failure after one command timeout. An
 * uninterruptible wait remembers an interrupt and restores the flag when it ends.
 */
final class Acquisition {

	private static final Log logger = LogFactory.getLog(Acquisition.class);

	private final RedisLock lock;

	private final SingleNodeEngine engine;

	private final LockParts parts;

	private final String owner;

	private final long startedNanos = System.nanoTime();

	private final Observation wait;

	/** How long to wait: {@code 0} for one attempt, negative for as long as it takes. */
	private final long waitNanos;

	private final boolean interruptible;

	/** The owner's hold when this is a re-entry. */
	private final @Nullable LockHold current;

	private final long leaseMillis;

	private final boolean watchdog;

	private ReleaseSignals.@Nullable Waiter waiter;

	private LockScripts.@Nullable Attempt lastAttempt;

	private boolean interruptedMeanwhile;

	/** Whether the subscription this acquisition's join requested was awaited, before the attempt after it. */
	private boolean subscriptionAwaited;

	/**
	 * @param owner the owner to acquire for
	 * @param leaseMillis the explicit or the registry's default lease, not renewed; {@code null} for a lease of
	 * the watchdog timeout that the watchdog renews. A re-entry keeps the lease of the hold it re-enters.
	 * @param waitNanos how long to wait: {@code 0} for one attempt, negative for as long as it takes
	 * @param interruptible whether an interrupt ends the wait, else it is remembered and restored
	 */
	Acquisition(RedisLock lock, SingleNodeEngine engine, String owner, @Nullable Long leaseMillis, long waitNanos,
			boolean interruptible) {
		this.lock = lock;
		this.wait = lock.startWait();
		this.engine = engine;
		this.parts = lock.parts();
		this.owner = owner;
		this.waitNanos = waitNanos;
		this.interruptible = interruptible;
		LockHold hold = this.parts.holds().get(lock, owner);
		this.current = (hold != null && !hold.isLost()) ? hold : null;
		if (this.current != null) {
			// A re-entry keeps the lease the lock was taken with: a shorter one would cut the outer hold short.
			this.leaseMillis = this.current.leaseMillis;
			this.watchdog = this.current.watchdog;
		}
		else {
			this.leaseMillis = (leaseMillis != null) ? leaseMillis : engine.spec.watchdogTimeout().toMillis();
			this.watchdog = leaseMillis == null;
		}
	}

	/**
	 * Waits for the lock.
	 * @return the hold, or {@code null} when the wait ran out
	 * @throws InterruptedException if interruptible and interrupted; nothing is held then
	 */
	@Nullable LockHold run() throws InterruptedException {
		if (this.interruptible && Thread.interrupted()) {
			report(AcquireResult.INTERRUPTED);
			throw new InterruptedException("Interrupted before acquiring lock '" + this.lock.name() + "'");
		}
		this.interruptedMeanwhile = !this.interruptible && Thread.interrupted();
		try {
			boolean attempt = !queueBehindLocalWaiters();
			while (true) {
				if (attempt) {
					LockHold hold = awaitSubscription();
					if (hold == null) {
						hold = attempt();
					}
					if (hold != null) {
						return acquired(hold);
					}
				}
				attempt = true;
				long remaining = remainingNanos();
				if (remaining <= 0) {
					return timedOut();
				}
				if (this.waiter == null) {
					this.waiter = this.engine.signals.join(channel(), this.owner, this.leaseMillis);
					if (this.waiter.subscribed) {
						// A release between the attempt and the subscription woke nobody: try again once subscribed.
						continue;
					}
				}
				LockHold handed = sleep(remaining);
				if (handed != null) {
					return acquired(handed);
				}
			}
		}
		finally {
			if (this.waiter != null) {
				this.engine.signals.leave(this.waiter);
			}
			if (this.interruptedMeanwhile) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Joins the queue, without an attempt, when local threads already wait for the lock.
	 * @return whether to wait before the first attempt
	 */
	private boolean queueBehindLocalWaiters() {
		if (this.waitNanos == 0 || this.current != null || !this.engine.signals.hasWaiters(channel())) {
			return false;
		}
		this.waiter = this.engine.signals.join(channel(), this.owner, this.leaseMillis);
		// The others left meanwhile and this thread subscribes anew: nobody else will notice a release.
		return !this.waiter.subscribed;
	}

	/**
	 * Before the first attempt after a join that subscribed: waits until the subscription, made on the
	 * registry's executor, is in place, so that a release after the attempt wakes this thread. The wait ends at
	 * the poll interval at the latest (a subscription that takes longer costs latency, as a lost message does),
	 * and on an interrupt, if interruptible; the subscription itself goes on.
	 * @return the hold when the lock was handed over meanwhile, else {@code null} to attempt
	 */
	private @Nullable LockHold awaitSubscription() throws InterruptedException {
		ReleaseSignals.Waiter waiter = this.waiter;
		if (waiter == null || !waiter.subscribed || this.subscriptionAwaited) {
			return null;
		}
		this.subscriptionAwaited = true;
		long deadline = System.nanoTime()
				+ Math.min(remainingNanos(), this.engine.spec.maxPollInterval().toNanos());
		while (waiter.awaitSubscription(deadline - System.nanoTime())) {
			LockHold handed = interruptedWhileWaiting();
			if (handed != null) {
				return handed;
			}
		}
		return takeClaim(waiter);
	}

	/**
	 * Runs the acquire script, again after an interrupt an uninterruptible wait ignores.
	 * @return the hold, or {@code null} when another owner holds the lock
	 */
	private @Nullable LockHold attempt() throws InterruptedException {
		while (true) {
			String requestId = this.parts.holds().nextRequestId();
			LockScripts.Attempt reply;
			// The wait in scope while its script is sent: the driver's command span is the wait's child.
			try (Observation.Scope scope = this.wait.openScope()) {
				reply = (this.current != null)
						? this.engine.scripts.reenter(this.lock.keys(), this.owner, this.leaseMillis, requestId)
						: this.engine.scripts.acquire(this.lock.keys(), this.owner, this.leaseMillis, requestId);
			}
			catch (RuntimeException ex) {
				LockHold handed = settle();
				if (handed != null) {
					return handed;
				}
				undoInBackground(requestId);
				if (Thread.interrupted()) {
					if (this.interruptible) {
						report(AcquireResult.INTERRUPTED);
						InterruptedException interrupted = new InterruptedException(
								"Interrupted while acquiring lock '" + this.lock.name() + "'");
						interrupted.initCause(ex);
						throw interrupted;
					}
					this.interruptedMeanwhile = true;
					if (this.waiter != null) {
						this.waiter.rejoin();
					}
					continue;
				}
				report(AcquireResult.ERROR);
				if (RedisFailures.isUnavailable(ex)) {
					this.parts.outages().warn(ex);
				}
				throw ex;
			}
			if (reply.acquired()) {
				// A claim racing this attempt handed over the same hold: settle it, then keep this result.
				settle();
				return held(reply.fencingToken(), reply.holdCount());
			}
			if (this.current != null) {
				// The owner thought it held the lock, but another owner has it: the hold was lost.
				this.parts.holds().markLost(this.current);
				report(AcquireResult.ERROR);
				throw new LockLeaseLostException(this.lock.name(), this.current.fencingToken);
			}
			this.lastAttempt = reply;
			return null;
		}
	}

	/**
	 * The outcome of a failed attempt is unknown: undo it, should it have taken effect. Not awaited, so that the
	 * caller hears of the failure after one command timeout; on a paused server the undo runs when it answers
	 * again, right after the attempt, and otherwise the lease ends what it could not undo.
	 */
	private void undoInBackground(String requestId) {
		try {
			this.engine.scripts.undo(this.lock.keys(), this.owner, this.leaseMillis, requestId)
				.whenComplete((left, failure) -> {
					if (failure != null && logger.isDebugEnabled()) {
						logger.debug("Could not undo a failed acquisition of lock '" + this.lock.name()
								+ "'; its lease will end it", failure);
					}
				});
		}
		catch (RuntimeException ex) {
			logger.debug("Could not undo a failed acquisition of lock '" + this.lock.name()
					+ "'; its lease will end it", ex);
		}
	}

	/**
	 * Sleeps until a release message, a hand-off, the end of the holder's lease, the poll interval or the wait
	 * time, whichever comes first.
	 * @return the hold when the lock was handed over, else {@code null} to try again
	 */
	private @Nullable LockHold sleep(long remainingNanos) throws InterruptedException {
		ReleaseSignals.Waiter waiter = this.waiter;
		long sleep = Math.min(remainingNanos, this.engine.spec.maxPollInterval().toNanos());
		if (this.lastAttempt != null) {
			sleep = this.lastAttempt.sleepNanos(sleep);
		}
		if (waiter.park(sleep)) {
			LockHold handed = interruptedWhileWaiting();
			if (handed != null) {
				return handed;
			}
		}
		return takeClaim(waiter);
	}

	/**
	 * An interrupt came while waiting: it ends an interruptible wait, else it is remembered and the wait goes on.
	 * @return the hold when the lock was handed over as the interrupt came (the interrupt then stays pending), or
	 * {@code null} to go on waiting
	 * @throws InterruptedException if the wait is interruptible and nothing was handed over
	 */
	private @Nullable LockHold interruptedWhileWaiting() throws InterruptedException {
		if (!this.interruptible) {
			this.interruptedMeanwhile = true;
			return null;
		}
		LockHold handed = settle();
		if (handed == null) {
			throw interrupted();
		}
		Thread.currentThread().interrupt();
		return handed;
	}

	/**
	 * Takes what a releaser that claimed this waiter hands over; a claim that handed nothing over arms the
	 * waiter again.
	 * @return the hold when the lock was handed over, else {@code null}
	 */
	private @Nullable LockHold takeClaim(ReleaseSignals.Waiter waiter) throws InterruptedException {
		if (waiter.isClaimed()) {
			long token = waiter.awaitResolution();
			if (token > 0) {
				return held(token, 1);
			}
			waiter.rearm();
			if (Thread.interrupted()) {
				if (this.interruptible) {
					throw interrupted();
				}
				this.interruptedMeanwhile = true;
			}
		}
		return null;
	}

	private InterruptedException interrupted() {
		report(AcquireResult.INTERRUPTED);
		return new InterruptedException("Interrupted while waiting for lock '" + this.lock.name() + "'");
	}

	/** The wait ran out; a waiter a releaser has just claimed still takes what it is handed. */
	private @Nullable LockHold timedOut() {
		LockHold late = settle();
		report((late != null) ? AcquireResult.ACQUIRED : AcquireResult.TIMEOUT);
		return late;
	}

	/**
	 * Leaves the wait; a waiter a releaser has already claimed takes what it is handed.
	 * @return the hold handed over, or {@code null}
	 */
	private @Nullable LockHold settle() {
		if (this.waiter == null || this.waiter.withdraw()) {
			return null;
		}
		long token = this.waiter.awaitResolution();
		return (token > 0) ? held(token, 1) : null;
	}

	private LockHold held(long fencingToken, int count) {
		return this.parts.holds().acquired(this.lock, this.owner, fencingToken, count, this.leaseMillis,
				this.watchdog);
	}

	private LockHold acquired(LockHold hold) {
		report(AcquireResult.ACQUIRED);
		return hold;
	}

	private long remainingNanos() {
		return (this.waitNanos < 0) ? Long.MAX_VALUE : this.waitNanos - (System.nanoTime() - this.startedNanos);
	}

	private String channel() {
		return this.lock.keys().released;
	}

	private void report(AcquireResult result) {
		this.lock.report(result, this.startedNanos, this.wait);
	}

}
