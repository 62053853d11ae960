package io.rediskit.support;

import java.util.concurrent.ScheduledFuture;

import org.jspecify.annotations.Nullable;

/**
 * The waiting half of an asynchronous wait that asks Redis again until the answer is final (an acquisition of
 * semaphore permits, a wait for a latch to open), written once: between two attempts it listens on a channel
 * ({@link ReleaseSignals#joinAsync}) and sleeps on the registry's scheduler, and whichever comes first, a message
 * or the timer, starts the next attempt. At most one attempt is in flight; a wake-up during one starts another
 * one after it. The owner of the wait keeps what is its own: the attempt, what an answer means, the outcome and
 * its report, the stop hook. Internal to redis-kit, shared by the lock family and the latch.
 */
public final class PollingWait {

	/** Runs a task once after a delay on the registry's scheduler. */
	public interface Scheduler {

		/**
		 * @return the scheduled task, to cancel
		 * @throws IllegalStateException if the registry stopped
		 */
		ScheduledFuture<?> schedule(Runnable task, long delayNanos);

	}

	private final ReleaseSignals signals;

	private final String channel;

	private final String owner;

	private final long leaseMillis;

	private final Scheduler scheduler;

	private final Runnable attempt;

	// Guarded by this.

	private boolean attempting;

	private boolean wokenWhileAttempting;

	private boolean done;

	private ReleaseSignals.@Nullable Waiter waiter;

	private @Nullable ScheduledFuture<?> timer;

	/**
	 * @param channel the channel whose messages wake the wait
	 * @param owner the waiter's owner id, which a message may name
	 * @param leaseMillis the lease the waiter asks for, as {@link ReleaseSignals} keeps it
	 * @param attempt starts one attempt; its answer calls {@link #again} or ends the wait with {@link #finish}
	 */
	public PollingWait(ReleaseSignals signals, String channel, String owner, long leaseMillis, Scheduler scheduler,
			Runnable attempt) {
		this.signals = signals;
		this.channel = channel;
		this.owner = owner;
		this.leaseMillis = leaseMillis;
		this.scheduler = scheduler;
		this.attempt = attempt;
	}

	/** Runs the first attempt. */
	public void start() {
		synchronized (this) {
			this.attempting = true;
		}
		this.attempt.run();
	}

	/**
	 * After an answer that is not final: joins the channel (once), then attempts again when woken or after
	 * {@code nanos}, at once when a wake-up came during the attempt.
	 * @throws IllegalStateException if the registry stopped between two attempts; the wait is over then
	 */
	public void again(long nanos) {
		boolean now;
		synchronized (this) {
			if (this.done) {
				return;
			}
			if (this.waiter == null) {
				this.waiter = this.signals.joinAsync(this.channel, this.owner, this.leaseMillis, this::wake);
			}
			try {
				this.timer = this.scheduler.schedule(this::wake, nanos);
			}
			catch (IllegalStateException ex) {
				this.done = true;
				cleanUp(false);
				throw ex;
			}
			now = this.wokenWhileAttempting || this.waiter.consumeSignal();
			this.wokenWhileAttempting = false;
			this.attempting = now;
		}
		if (now) {
			cancelTimer();
			this.attempt.run();
		}
	}

	/** A message or the timer: attempt now, or once the attempt in flight has answered. */
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
		this.attempt.run();
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

	/** @return whether the wait is over */
	synchronized boolean isDone() {
		return this.done;
	}

	/**
	 * Ends the wait: no more attempts, the timer cancelled, the channel left.
	 * @param passOn whether the wake-up goes on to the next waiter of this instance (a latch found open)
	 * @return whether this call ended the wait, so that the caller completes and reports it once
	 */
	public boolean finish(boolean passOn) {
		synchronized (this) {
			if (this.done) {
				return false;
			}
			this.done = true;
			cleanUp(passOn);
		}
		return true;
	}

	// Called under this.
	private void cleanUp(boolean passOn) {
		if (this.timer != null) {
			this.timer.cancel(false);
			this.timer = null;
		}
		if (this.waiter != null) {
			if (passOn) {
				this.waiter.signal();
			}
			this.signals.leave(this.waiter);
			this.waiter = null;
		}
	}

}
