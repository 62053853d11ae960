package io.rediskit.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.Stages;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.scheduling.TaskScheduler;

/**
 * The dispatcher of a {@link QueueListenerContainer}: holds the claimed deliveries, runs the handler on them with
 * at most {@code concurrency} at once, settles each after its handler finished, and says how many more it can
 * take (back-pressure for the {@link QueuePoller}).
 * <p>
 * <b>Capacity.</b> It holds at most {@code concurrency + prefetch} deliveries: running, waiting in its buffer, or
 * with their ack on the wire. A delivery counts until its settling call completed, so a Redis that stops taking
 * acks stops the claims too, with one exception: once every delivery held has finished (none running, none
 * buffered), those whose settling call is on the wire count as room, and the next claim is asked for right away.
 * Sent from the same thread after those calls, on the same connection where the script executor never blocks, it
 * reaches Redis behind them and is answered after them: the claims of a burst follow the acks without a round
 * trip between them. It then holds at most three times {@code concurrency + prefetch}, counting the deliveries
 * whose ack is not answered yet (overtaken by the claim while it waited in the {@link AckBatcher}, or sent on
 * another connection than the claim's). Not for a queue with an in-flight limit (its own or its groups'), whose
 * claims must see the acks' room ({@link #claimsBehindAcks()}).
 * <p>
 * <b>Threads.</b> A worker task on the executor takes deliveries from the buffer until it is empty, so a burst
 * costs one task per worker, not one per message; at most {@code concurrency} workers exist at once. Workers are
 * started one after another: a worker that takes a delivery and leaves others waiting starts the next, unless one
 * it started has not begun yet. Slow handlers thus have every worker within a few thread wake-ups, while quick
 * ones are taken by the few threads that are awake before the others would have woken (each wake-up costs
 * processor time that a burst of quick messages does not need). The handler's
 * thread does not wait for the ack: it sends it (through the queue's {@link AckBatcher}) and takes the next
 * delivery. At-least-once holds: the ack leaves only after the handler returned; a crash between the two, or a
 * lost ack, brings the message back after the visibility timeout.
 * <p>
 * <b>Held acks.</b> A delivery that finishes while others taken from the buffer are still running, or others wait
 * in it, has its ack held (not sent) until the last of them finishes, or the ack linger has passed since the
 * first ack held, whichever first; then every held ack goes in one script call. A claim of quick handlers is thus
 * acked in one call, not in two (the first finished alone, since nothing else was on the wire, then the rest). A
 * crash while acks are held only makes their messages come back after the visibility timeout, as a crash before
 * the ack does; a stop sends the held acks at once, before it completes. The linger is kept far below the
 * visibility timeout (see {@link QueueListenerContainer#setAckLinger}), since a delivery whose ack is held or on
 * the wire is no longer extended by the watchdog.
 * <p>
 * {@link #free()} is what the poller claims. What the queue admits across instances (pause, its rate and in-flight
 * limits) is not decided here but by the claim script, atomically with the claim: a container's view would be
 * neither cluster-wide nor race-free.
 */
final class QueueDispatcher<T> {

	private static final Log logger = LogFactory.getLog(QueueDispatcher.class);

	private final ScriptedRedisQueue<T> queue;

	private final QueueHandler<T> handler;

	private final int concurrency;

	private final int capacity;

	private final Executor executor;

	/** Told that room was made worth a claim; with whether on a settling call's successful reply. */
	private final Consumer<Boolean> capacityFreed;

	private final ThrottledLog failures;

	/** Longest an ack is held for others, in nanoseconds, from the first held; 0 holds none. */
	private final long lingerNanos;

	/** Runs the linger's deadline. */
	private final TaskScheduler scheduler;

	private final ReentrantLock lock = new ReentrantLock();

	private final ArrayDeque<Delivery<T>> buffer = new ArrayDeque<>();

	/** Every delivery held and not settled yet, for the watchdog and for a stop that times out. */
	private final Set<Delivery<T>> unsettled = ConcurrentHashMap.newKeySet();

	private final CompletableFuture<Void> drained = new CompletableFuture<>();

	/** Workers running or given to the executor, at most {@code concurrency}. */
	private int workers;

	/** A worker was given to the executor and has not begun: the next is started by it, not before. */
	private boolean starting;

	private int held;

	/** Deliveries taken from the buffer whose handler (or other ending) has not finished yet. */
	private int active;

	/** Acks are held, to be flushed when the last active delivery finishes or the linger passes. */
	private boolean lingering;

	/** Counts lingers, so that a linger's deadline flushes only its own. */
	private long lingers;

	/**
	 * Deliveries whose handler finished and whose settling call is on the wire: room that comes back shortly.
	 * Counted up without the lock by the handler's thread, down under it with the room the settling makes.
	 */
	private final AtomicInteger settling = new AtomicInteger();

	private volatile boolean accepting = true;

	QueueDispatcher(ScriptedRedisQueue<T> queue, QueueHandler<T> handler, int concurrency, int prefetch,
			Executor executor, Consumer<Boolean> capacityFreed, ThrottledLog failures, Duration ackLinger,
			TaskScheduler scheduler) {
		this.queue = queue;
		this.handler = handler;
		this.concurrency = concurrency;
		this.capacity = concurrency + prefetch;
		this.executor = executor;
		this.capacityFreed = capacityFreed;
		this.failures = failures;
		this.lingerNanos = ackLinger.toNanos();
		this.scheduler = scheduler;
	}

	/** @return how many more deliveries it takes now: 0 while it is full or stopping */
	int free() {
		this.lock.lock();
		try {
			return this.accepting ? roomLocked() : 0;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Whether a claim is worth its round trip now. With no settling call on the wire: half the capacity is free,
	 * or the buffer is empty (the next free handler would wait) and something is. With acks on the wire, only once
	 * three quarters are free: their room comes back within a round trip, and claiming what is free before it
	 * would split one claim of the capacity into a claim of part of it and another of the rest, each with its
	 * promote and each starting ack batches of its own: more script calls per message, for a claim at most one
	 * ack round trip earlier. The three quarters keep claims going should acks never stop being on the wire.
	 */
	boolean wantsMore() {
		this.lock.lock();
		try {
			return wantsMoreLocked();
		}
		finally {
			this.lock.unlock();
		}
	}

	// Under the lock.
	private boolean wantsMoreLocked() {
		int free = roomLocked();
		if (!this.accepting || free <= 0) {
			return false;
		}
		if (this.settling.get() == 0 || allSettling()) {
			return free * 2 >= this.capacity || this.buffer.isEmpty();
		}
		return free * 4 >= this.capacity * 3;
	}

	/**
	 * Under the lock: the room a claim may take. Once nothing is running or buffered, the deliveries whose settling
	 * call is on the wire (or waits in the ack batcher behind one) count as room: a claim sent now follows those
	 * calls, so their room comes back as the claim is answered, and the claim no longer waits a round trip for them.
	 */
	private int roomLocked() {
		int free = this.capacity - this.held;
		if (!claimsBehindAcks()) {
			return free;
		}
		// Bounded: claims answered while acks are not (another connection, of a pooled factory) stop after two more.
		// Not tighter: with acks sent one by one (no linger), a claim's last acks may still wait for their reply when
		// the next claim's handlers finish, and a tighter bound would make claims of the few slots left.
		return allSettling() ? free + Math.min(this.settling.get(), 2 * this.capacity) : free;
	}

	/**
	 * Whether a claim may go behind the acks: not for a queue whose in-flight limits (its own, its groups') the acks
	 * make room in. Those claims rely on Redis taking the acks first, which an ack sent again after a
	 * {@code NOSCRIPT} does not: the claim would be refused, its messages counted as held back once more.
	 */
	private boolean claimsBehindAcks() {
		QueueSpec spec = this.queue.spec();
		return spec.maxInFlight() == 0 && spec.groups() == null;
	}

	// Under the lock: every delivery held has finished, its settling call sent or held.
	private boolean allSettling() {
		return this.active == 0 && this.buffer.isEmpty();
	}

	/** @return deliveries held and not settled: waiting, running or being settled */
	int heldCount() {
		return this.unsettled.size();
	}

	/** @return the deliveries held and not settled, for the watchdog */
	List<Delivery<T>> unsettled() {
		List<Delivery<T>> held = new ArrayList<>(this.unsettled.size());
		for (Delivery<T> delivery : this.unsettled) {
			if (!delivery.isSettled()) {
				held.add(delivery);
			}
		}
		return held;
	}

	/**
	 * A cancel from any instance: interrupts the handler running that message, or keeps it from starting; the
	 * scripts dead-letter it as cancelled whatever happens here.
	 */
	void cancel(String id) {
		for (Delivery<T> delivery : this.unsettled) {
			if (delivery.id().equals(id)) {
				delivery.cancelRequested();
			}
		}
	}

	/** Takes claimed deliveries; once stopping it gives them back at once instead. */
	void offer(List<Delivery<T>> deliveries) {
		if (deliveries.isEmpty()) {
			return;
		}
		this.unsettled.addAll(deliveries);
		boolean accepted;
		boolean start;
		this.lock.lock();
		try {
			// Counted either way: each is counted out once, when settled or given back.
			this.held += deliveries.size();
			accepted = this.accepting;
			if (accepted) {
				this.buffer.addAll(deliveries);
			}
			start = accepted && startsWorker();
		}
		finally {
			this.lock.unlock();
		}
		if (!accepted) {
			deliveries.forEach(this::release);
			return;
		}
		if (start) {
			startWorker();
		}
	}

	/**
	 * Under the lock: whether a worker is to be started for what waits in the buffer, counted as started if so.
	 * Not while one started has not begun: that one starts the next once it takes a delivery and sees more.
	 */
	private boolean startsWorker() {
		if (this.starting || this.workers >= this.concurrency || this.buffer.isEmpty()) {
			return false;
		}
		this.workers++;
		this.starting = true;
		return true;
	}

	private void startWorker() {
		try {
			this.executor.execute(this::work);
		}
		catch (RejectedExecutionException ex) {
			// The executor is shutting down or full: the buffered deliveries go back at once.
			List<Delivery<T>> orphans = new ArrayList<>();
			this.lock.lock();
			try {
				this.workers--;
				this.starting = false;
				if (this.workers == 0) {
					orphans.addAll(this.buffer);
					this.buffer.clear();
				}
			}
			finally {
				this.lock.unlock();
			}
			this.failures.warn(ex, "the handler executor refused a task; its messages go back to the queue");
			orphans.forEach(this::release);
		}
	}

	private void work() {
		boolean begun = false;
		while (true) {
			Delivery<T> delivery;
			boolean another;
			this.lock.lock();
			try {
				if (!begun) {
					// Only one worker is ever started and not begun: this one.
					this.starting = false;
					begun = true;
				}
				delivery = this.buffer.poll();
				if (delivery == null) {
					this.workers--;
					return;
				}
				this.active++;
				another = startsWorker();
			}
			finally {
				this.lock.unlock();
			}
			if (another) {
				startWorker();
			}
			if (!this.accepting) {
				finishedUnacked();
				release(delivery);
				continue;
			}
			if (delivery.isCancelRequested() || delivery.isExpired()) {
				finishedUnacked();
				// Not started: the dead-letter script keeps a cancel's reason, and an expiry is its own.
				settle(delivery, "dead-letter", delivery.isCancelRequested()
						? () -> delivery.deadLetterAsync(DeadLetter.CANCELLED) : delivery::expireAsync);
				continue;
			}
			if (!handle(delivery)) {
				// Interrupted: this thread's flag stays set for its owner; a fresh worker takes over the buffer.
				boolean more;
				this.lock.lock();
				try {
					this.workers--;
					more = startsWorker();
				}
				finally {
					this.lock.unlock();
				}
				if (more) {
					startWorker();
				}
				return;
			}
		}
	}

	/** @return {@code false} if the handler was interrupted */
	private boolean handle(Delivery<T> delivery) {
		delivery.started();
		Observations observations = this.queue.parts().observations;
		// A child of the enqueuing span, not a link: one message is one causal chain, as Spring Kafka's and JMS's
		// listener observations continue theirs; its handler's own calls are children of it (the scope).
		Observation observation = observations.isNoop() ? Observation.NOOP
				: observations.startReceive(RedisKitObservation.QUEUE_HANDLE, this.queue.name(), delivery.headers());
		// Observation.NOOP's scope is an object of its own: not made when nothing observes.
		try (Observation.Scope scope = observation.isNoop() ? Observation.Scope.NOOP : observation.openScope()) {
			this.handler.handle(delivery);
		}
		catch (Exception | Error ex) {
			// A cancel's interrupt is the delivery's, not the thread owner's: this worker goes on.
			boolean interrupted = !delivery.finished() && ex instanceof InterruptedException;
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
			finishedUnacked();
			if (!delivery.isSettled()) {
				Observations.stop(observation, "retry", ex);
				Duration backoff = this.queue.spec().jitteredBackoff(delivery.deliveryCount());
				if (!interrupted) {
					logHandlerFailure(delivery, backoff, ex);
				}
				settle(delivery, "retry", () -> delivery.retryAsync(backoff, describe(ex)));
			}
			else {
				Observations.stop(observation, "settled", ex);
				settled(delivery);
			}
			return !interrupted;
		}
		delivery.finished();
		if (!delivery.isSettled()) {
			Observations.stop(observation, "ack");
			settle(delivery, "ack", () -> ackOrHold(delivery));
		}
		else {
			finishedUnacked();
			Observations.stop(observation, "settled");
			settled(delivery);
		}
		return true;
	}

	/**
	 * Counts a finished delivery out of the active ones and acks it: held while others are active or buffered
	 * (see the class's description), else sent with every ack held. Holding happens under the lock, so that the
	 * last delivery to finish, which decides under it too, sends every ack held before it.
	 */
	private CompletionStage<Void> ackOrHold(Delivery<T> delivery) {
		CompletionStage<Void> held = null;
		boolean unarmed = false;
		boolean last;
		this.lock.lock();
		try {
			this.active--;
			last = allSettling();
			if (this.lingerNanos > 0 && this.accepting && (this.active > 0 || !this.buffer.isEmpty())) {
				held = delivery.ackAsync(true);
				if (!this.lingering) {
					this.lingering = true;
					unarmed = !armLinger(++this.lingers);
					if (unarmed) {
						this.lingering = false;
					}
				}
			}
			else {
				// The last to finish: its ack takes every ack held with it.
				this.lingering = false;
			}
		}
		finally {
			this.lock.unlock();
		}
		if (held == null) {
			CompletionStage<Void> sent = delivery.ackAsync(false);
			if (last) {
				claimBehind();
			}
			return sent;
		}
		if (unarmed) {
			// No deadline would send it.
			acks().flush();
		}
		return held;
	}

	/**
	 * Counts a delivery out of the active ones that ends without an ack of its own (retried, dead-lettered, settled
	 * by its handler, given back); the last of them to finish sends the acks held.
	 */
	private void finishedUnacked() {
		boolean flush;
		boolean last;
		this.lock.lock();
		try {
			this.active--;
			last = allSettling();
			flush = this.lingering && last;
			if (flush) {
				this.lingering = false;
			}
		}
		finally {
			this.lock.unlock();
		}
		if (flush) {
			acks().flush();
		}
		if (last) {
			claimBehind();
		}
	}

	/**
	 * Asks for a claim right behind the settling calls just sent, if the last delivery held has finished (see
	 * {@link #roomLocked()}): the driver writes it after them on the same connection, so Redis takes the acks
	 * first, and the next claim of a burst costs no round trip of its own.
	 */
	private void claimBehind() {
		if (!claimsBehindAcks()) {
			return;
		}
		boolean wanted;
		this.lock.lock();
		try {
			wanted = allSettling() && wantsMoreLocked();
		}
		finally {
			this.lock.unlock();
		}
		if (wanted) {
			this.capacityFreed.accept(true);
		}
	}

	/**
	 * Under the lock: the first ack of a linger was held; its deadline sends it and those held after it.
	 * @return {@code false} if the scheduler refused the deadline (it is shutting down)
	 */
	private boolean armLinger(long linger) {
		try {
			this.scheduler.schedule(() -> lingered(linger), Instant.now().plusNanos(this.lingerNanos));
			return true;
		}
		catch (RejectedExecutionException ex) {
			return false;
		}
	}

	private void lingered(long linger) {
		boolean flush;
		this.lock.lock();
		try {
			flush = this.lingering && this.lingers == linger;
			if (flush) {
				this.lingering = false;
			}
		}
		finally {
			this.lock.unlock();
		}
		if (flush) {
			acks().flush();
		}
	}

	private AckBatcher acks() {
		return this.queue.state().ackBatcher(this.queue.parts().scripts);
	}

	/**
	 * Logs a handler's exception with its stack trace, once per failed delivery, as Spring AMQP's and Spring Kafka's
	 * listener containers do: without it the application sees its messages retried and dead-lettered and nowhere
	 * why, the reason being kept only in Redis, shortened, for the dead letter.
	 */
	private void logHandlerFailure(Delivery<T> delivery, Duration backoff, Throwable failure) {
		int deliveries = delivery.deliveryCount();
		int max = this.queue.spec().maxDeliveries();
		String failed = "Queue '" + this.queue.name() + "' handler failed on delivery " + deliveries + " of " + max
				+ " of message " + delivery.id();
		logger.warn(failed + ((deliveries >= max) ? "; it is dead-lettered"
				: "; it is delivered again in " + backoff.toMillis() + " ms"), failure);
	}

	private void settle(Delivery<T> delivery, String operation, Supplier<CompletionStage<Void>> call) {
		this.settling.incrementAndGet();
		CompletionStage<Void> stage;
		try {
			stage = call.get();
		}
		catch (RuntimeException ex) {
			settleFailed(delivery, operation, ex);
			settled(delivery, true, false);
			return;
		}
		stage.whenComplete((done, failure) -> {
			if (failure != null) {
				settleFailed(delivery, operation, Stages.unwrap(failure));
			}
			settled(delivery, true, failure == null);
		});
	}

	private void settleFailed(Delivery<T> delivery, String operation, Throwable failure) {
		if (failure instanceof StaleDeliveryException) {
			logger.warn(failure.getMessage() + "; the handler overran the visibility timeout or the container stopped");
		}
		else if (failure instanceof IllegalStateException) {
			// Released by a stopping container while the handler still ran.
			logger.debug("Cannot " + operation + " " + delivery + ": " + failure.getMessage());
		}
		else {
			// An outage: the handler's work stands, and the delivery comes back after its visibility timeout.
			this.failures.warn(failure, "cannot " + operation + " " + delivery
					+ "; it is delivered again after the visibility timeout");
			this.queue.parts().listeners.notify((l) -> l.onSettleFailed(this.queue.name(), operation));
		}
	}

	/** Counts a delivery out, once, and tells the poller that room was made. */
	private void settled(Delivery<T> delivery) {
		settled(delivery, false, false);
	}

	/**
	 * Counts a delivery out, once, and tells the poller that room was made if it wants more now.
	 * @param called whether it was counted as settling, its call now complete: counted out of that in the same
	 * step, so that the room it makes is seen with nothing left on the wire for it
	 * @param replied whether the caller completes that call's successful reply (the poller may claim from here)
	 */
	private void settled(Delivery<T> delivery, boolean called, boolean replied) {
		boolean counted = this.unsettled.remove(delivery);
		if (!counted && !called) {
			return;
		}
		boolean empty;
		boolean wanted;
		this.lock.lock();
		try {
			if (called) {
				this.settling.decrementAndGet();
			}
			if (!counted) {
				return;
			}
			this.held--;
			empty = this.held == 0;
			wanted = wantsMoreLocked();
		}
		finally {
			this.lock.unlock();
		}
		if (empty && !this.accepting) {
			this.drained.complete(null);
		}
		if (wanted) {
			// Told only when a claim is worth it (as the poller would ask at once): most settlings of a claim
			// are not, and the call takes the poller's lock and this one again.
			this.capacityFreed.accept(replied);
		}
	}

	private void release(Delivery<T> delivery) {
		CompletionStage<Void> stage;
		try {
			stage = delivery.releaseAsync();
		}
		catch (RuntimeException ex) {
			// Settled meanwhile by its handler.
			settled(delivery);
			return;
		}
		stage.whenComplete((done, failure) -> {
			if (failure != null) {
				logger.debug("Cannot give back " + delivery + "; it comes back after the visibility timeout",
						Stages.unwrap(failure));
			}
			settled(delivery);
		});
	}

	/**
	 * Stops taking deliveries: those not started go back at once; running handlers get the timeout to finish and
	 * be settled, then the deliveries of those still running go back at once too.
	 * @return completed when every held delivery is settled or given back
	 */
	CompletableFuture<Void> stop(Duration timeout) {
		List<Delivery<T>> unstarted;
		boolean empty;
		this.lock.lock();
		try {
			this.accepting = false;
			unstarted = new ArrayList<>(this.buffer);
			this.buffer.clear();
			empty = this.held == 0;
			// Nothing is held from here on (no ack is held once not accepting): the acks held so far go now, so
			// that a graceful stop leaves no redelivery behind, whatever the scheduler of their linger does.
			this.lingering = false;
		}
		finally {
			this.lock.unlock();
		}
		acks().flush();
		if (empty) {
			this.drained.complete(null);
		}
		unstarted.forEach(this::release);
		if (!this.drained.isDone()) {
			// Not the task scheduler: an application's scheduler may be paused by the context's shutdown already.
			CompletableFuture.runAsync(this::releaseRemaining,
					CompletableFuture.delayedExecutor(timeout.toNanos(), TimeUnit.NANOSECONDS));
		}
		return this.drained;
	}

	/** Gives back at once, all in parallel, the deliveries whose handlers did not finish in time. */
	private void releaseRemaining() {
		if (this.drained.isDone()) {
			return;
		}
		List<CompletableFuture<Void>> releases = new ArrayList<>();
		for (Delivery<T> delivery : this.unsettled) {
			try {
				releases.add(delivery.releaseAsync().toCompletableFuture());
			}
			catch (IllegalStateException ex) {
				// Settled meanwhile by its handler.
			}
		}
		CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)).whenComplete((done, failure) -> {
			if (failure != null) {
				logger.warn("Not every unfinished message of queue '" + this.queue.name()
						+ "' could be given back; the rest come back after the visibility timeout: "
						+ Stages.unwrap(failure).getMessage());
			}
			this.unsettled.clear();
			this.drained.complete(null);
		});
	}

	private static String describe(Throwable failure) {
		String message = failure.getMessage();
		String text = failure.getClass().getName() + ((message != null) ? ": " + message : "");
		return (text.length() > 1000) ? text.substring(0, 1000) + "..." : text;
	}

}
