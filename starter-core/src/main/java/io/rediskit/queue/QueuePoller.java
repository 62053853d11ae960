package io.rediskit.queue;

import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import io.rediskit.support.Stages;
import io.rediskit.support.ThrottledLog;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.TaskScheduler;

/**
 * The poller of a {@link QueueListenerContainer}: claims, in one script call, as many due messages as the
 * {@link QueueDispatcher} has room for, and hands them over. It holds no thread: a poll is a task on the
 * {@link TaskScheduler} whose claim completes asynchronously; at most one is under way at a time. Where the script
 * executor never blocks (the shared native Lettuce connection), a poll asked for by a reply (a settling call's that
 * made room, a claim's that left ready messages behind) runs on that reply's thread instead, after the reply's other
 * completions ({@link ReplyTail}): the claim is written at once, with no scheduler thread woken for it.
 * <p>
 * <b>When it polls.</b> At once again after a claim that found more ready messages than it could take, as soon
 * as the dispatcher {@link QueueDispatcher#wantsMore() wants more}; after a claim that emptied the queue, at the
 * earliest due time it was told or the poll interval, whichever is first; and at once on a wake-up notification
 * (a new message due earlier, a retry, a message given back). A lost notification costs at most one poll
 * interval. While Redis is unavailable it logs once per 10 s and tries again every poll interval.
 * <p>
 * <b>Held back.</b> While the queue or its listener is paused it claims once per poll interval and ignores
 * wake-ups (enqueues would otherwise make it claim for nothing); a resume takes effect at the next of those. While
 * the queue's in-flight limit admits nothing it claims again after the poll interval, or at once when the
 * dispatcher settled one of its own; while the rate limit admits nothing, when the limit says one is admitted.
 */
final class QueuePoller<T> {

	private final ScriptedRedisQueue<T> queue;

	private final QueueDispatcher<T> dispatcher;

	private final TaskScheduler scheduler;

	private final ThrottledLog failures;

	private final @Nullable String listener;

	/**
	 * Whether a claim may be sent from the thread of the reply that made room for it (the script executor never
	 * blocks its caller): the driver's thread writes it at once, where a task on the scheduler would wake a
	 * scheduler thread, which hands the write back to the driver's thread.
	 */
	private final boolean claimsOnReply;

	private final ReentrantLock lock = new ReentrantLock();

	private final CompletableFuture<Void> stopped = new CompletableFuture<>();

	private boolean running;

	private boolean polling;

	private boolean again;

	/** The last claim left ready messages behind: room in the dispatcher is worth a claim at once. */
	private boolean moreReady;

	/** The last claim found the queue or the listener paused: wake-ups are ignored until the timer. */
	private boolean paused;

	/** The last claim was held back by the in-flight limit: a delivery of this container settled makes room. */
	private boolean inFlightHeld;

	/**
	 * The safety-net timer, armed once for many claims: a poll does not cancel it, and the claim after it leaves it
	 * armed when it fires no later than that claim wants ({@link #onTimer} then arms it again for the rest).
	 * Re-armed per claim, it woke a scheduler thread per claim of a drain.
	 */
	private @Nullable ScheduledFuture<?> timer;

	/** {@link System#nanoTime()} at which the armed {@link #timer} fires. */
	private long timerAt;

	/** Whether a timed poll is wanted at {@link #wakeAt}: since the last poll ended without starting another. */
	private boolean waiting;

	private long wakeAt;

	QueuePoller(ScriptedRedisQueue<T> queue, QueueDispatcher<T> dispatcher, TaskScheduler scheduler,
			ThrottledLog failures) {
		this(queue, dispatcher, scheduler, failures, null);
	}

	QueuePoller(ScriptedRedisQueue<T> queue, QueueDispatcher<T> dispatcher, TaskScheduler scheduler,
			ThrottledLog failures, @Nullable String listener) {
		this.queue = queue;
		this.dispatcher = dispatcher;
		this.scheduler = scheduler;
		this.failures = failures;
		this.listener = listener;
		this.claimsOnReply = queue.parts().scripts.neverBlocks();
	}

	void start() {
		this.lock.lock();
		try {
			this.running = true;
		}
		finally {
			this.lock.unlock();
		}
		trigger();
	}

	/** Polls as soon as it can: a wake-up notification; ignored while paused. */
	void trigger() {
		this.lock.lock();
		try {
			if (!this.running || this.paused) {
				return;
			}
			triggerLocked();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** @param armedAt the time the timer was armed for: a cancelled timer that ran anyway is told by it */
	private void onTimer(long armedAt) {
		this.lock.lock();
		try {
			if (this.timer == null || armedAt != this.timerAt) {
				return;
			}
			this.timer = null;
			if (!this.running || !this.waiting) {
				// A poll began since: its end arms the timer again.
				return;
			}
			if (this.wakeAt - System.nanoTime() > TimeUnit.MILLISECONDS.toNanos(1)) {
				// Armed for an earlier poll than the last one wanted.
				arm(this.wakeAt);
				return;
			}
			this.waiting = false;
			this.paused = false;
			triggerLocked();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Under the lock: the timer fires at {@code at} ({@link System#nanoTime()}) at the latest. */
	private void arm(long at) {
		ScheduledFuture<?> pending = this.timer;
		if (pending != null) {
			if (this.timerAt - at <= 0) {
				return;
			}
			pending.cancel(false);
		}
		this.timerAt = at;
		this.timer = schedule(() -> onTimer(at), Instant.now().plusNanos(Math.max(0, at - System.nanoTime())));
	}

	// Under the lock.
	private void triggerLocked() {
		if (this.polling) {
			this.again = true;
			return;
		}
		beginPoll(false);
	}

	/**
	 * The dispatcher settled a delivery: claim again if messages are known to wait and it wants more.
	 * @param onReply whether the caller is completing a settling call's successful reply: the claim is then sent
	 * from this thread if the script executor never blocks
	 */
	void capacityFreed(boolean onReply) {
		boolean here;
		this.lock.lock();
		try {
			if (!this.running || !(this.moreReady || this.inFlightHeld) || this.polling
					|| !this.dispatcher.wantsMore()) {
				return;
			}
			here = beginPoll(onReply);
		}
		finally {
			this.lock.unlock();
		}
		if (here) {
			// After the other deliveries the same reply settles, whose room the claim takes too.
			ReplyTail.after(this::poll);
		}
	}

	/**
	 * Under the lock: marks a poll under way and schedules it, or leaves it to the caller.
	 * @param onReply whether the caller completes a reply of the driver's; ignored unless claims never block
	 * @return whether the caller runs {@link #poll()} itself, once it released the lock
	 */
	private boolean beginPoll(boolean onReply) {
		this.polling = true;
		this.again = false;
		this.waiting = false;
		if (onReply && this.claimsOnReply) {
			// The claim is written from the reply's thread, which it does not block.
			return true;
		}
		// A hop to the scheduler: the caller may be a Redis reply thread, and a blocking driver would run the
		// claim on the calling thread.
		if (schedule(this::poll, Instant.now()) == null) {
			this.polling = false;
		}
		return false;
	}

	/**
	 * Under the lock. Schedules a task, or, when the scheduler refuses it, stops polling. Spring shuts an
	 * application's scheduler down as the context closes, before the containers' own stop: a refusal then must
	 * not leave a poll marked under way (the container's stop would wait for it until the lifecycle's timeout)
	 * nor reach the scheduler's error handler as an error.
	 * @return the scheduled task, or {@code null} if the scheduler refused it
	 */
	private @Nullable ScheduledFuture<?> schedule(Runnable task, Instant at) {
		try {
			return this.scheduler.schedule(task, at);
		}
		catch (RejectedExecutionException ex) {
			this.running = false;
			this.stopped.complete(null);
			return null;
		}
	}

	private void poll() {
		int max = Math.min(this.dispatcher.free(), QueueScripts.MAX_CLAIM);
		if (max <= 0) {
			// Full: the dispatcher's settling calls bring the next claim.
			finish(true, this.queue.spec().pollInterval().toNanos(), false);
			return;
		}
		Thread caller = Thread.currentThread();
		CompletionStage<ScriptedRedisQueue.Batch<T>> claim;
		try {
			claim = this.queue.claimBatch(max, this.listener);
		}
		catch (RuntimeException ex) {
			claim = CompletableFuture.failedFuture(ex);
		}
		claim.whenComplete((batch, failure) -> {
			if (failure != null) {
				this.failures.warn(Stages.unwrap(failure));
				finish(false, this.queue.spec().pollInterval().toNanos(), false);
				return;
			}
			this.dispatcher.offer(batch.messages());
			boolean more = batch.moreReady() || batch.messages().size() >= max;
			this.lock.lock();
			try {
				this.paused = batch.heldBy() == QueueScripts.HeldBack.PAUSED;
				this.inFlightHeld = batch.heldBy() == QueueScripts.HeldBack.MAX_IN_FLIGHT
						|| batch.heldBy() == QueueScripts.HeldBack.GROUP_LIMIT;
			}
			finally {
				this.lock.unlock();
			}
			// On the reply's thread, not the one that sent the claim (a reply there already would make the next
			// claim a call within this one, and so on).
			finish(more, more ? this.queue.spec().pollInterval().toNanos() : batch.sleepNanos(this.queue.spec()),
					Thread.currentThread() != caller);
		});
	}

	/**
	 * Ends a poll: the next at once if one is wanted, else a timer.
	 * @param onReply whether the caller completes the claim's reply, as for {@link #beginPoll}
	 */
	private void finish(boolean more, long sleepNanos, boolean onReply) {
		boolean here = false;
		this.lock.lock();
		try {
			this.polling = false;
			this.moreReady = more;
			if (!this.running) {
				this.stopped.complete(null);
				return;
			}
			if ((this.again && !this.paused) || (more && this.dispatcher.wantsMore())) {
				here = beginPoll(onReply);
			}
			else {
				// A timer also when messages wait for room: a safety net should a settling call's signal be missed.
				this.waiting = true;
				this.wakeAt = System.nanoTime() + Math.max(TimeUnit.MILLISECONDS.toNanos(1), sleepNanos);
				arm(this.wakeAt);
			}
		}
		finally {
			this.lock.unlock();
		}
		if (here) {
			poll();
		}
	}

	/** @return completed when no claim is under way any more; a claim that was returns its messages to the dispatcher */
	CompletableFuture<Void> stop() {
		this.lock.lock();
		try {
			this.running = false;
			this.waiting = false;
			ScheduledFuture<?> pending = this.timer;
			if (pending != null) {
				pending.cancel(false);
				this.timer = null;
			}
			if (!this.polling) {
				this.stopped.complete(null);
			}
		}
		finally {
			this.lock.unlock();
		}
		return this.stopped;
	}

}
