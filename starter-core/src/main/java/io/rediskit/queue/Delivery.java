package io.rediskit.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

import io.rediskit.queue.PayloadCodec.Decoded;
import io.rediskit.queue.QueueScripts.ClaimedMessage;
import io.rediskit.queue.QueueScripts.Settled;
import io.rediskit.queue.QueueScripts.Settlement;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

/**
 * One delivery of a message, settled once through its token. It also knows the thread its handler runs on, so
 * that a cancel from any instance interrupts that handler and nothing else.
 */
final class Delivery<T> implements QueueMessage<T> {

	private final ScriptedRedisQueue<T> queue;

	private final ClaimedMessage claimed;

	private final T payload;

	private final Map<String, String> headers;

	private final long timeToLiveMillis;

	private final Object running = new Object();

	// Guarded by running: the handler's thread while it runs, and whether a cancel was asked for.
	private @Nullable Thread runner;

	private boolean cancelRequested;

	private final long deliveredAtMillis;

	private final long receivedNanos = System.nanoTime();

	private final AtomicBoolean settled = new AtomicBoolean();

	private volatile @Nullable String result;

	Delivery(ScriptedRedisQueue<T> queue, ClaimedMessage claimed, Decoded<T> decoded, long deliveredAtMillis) {
		this.queue = queue;
		this.claimed = claimed;
		this.payload = decoded.payload();
		this.headers = decoded.headers();
		this.timeToLiveMillis = decoded.timeToLiveMillis();
		this.deliveredAtMillis = deliveredAtMillis;
	}

	@Override
	public String id() {
		return this.claimed.id();
	}

	@Override
	public T payload() {
		return this.payload;
	}

	@Override
	public Map<String, String> headers() {
		return this.headers;
	}

	@Override
	public QueuePriority priority() {
		return this.claimed.priority();
	}

	@Override
	public int deliveryCount() {
		return this.claimed.deliveries();
	}

	@Override
	public Instant dueAt() {
		return Instant.ofEpochMilli(this.claimed.dueMillis());
	}

	@Override
	public Instant deliveredAt() {
		return Instant.ofEpochMilli(this.deliveredAtMillis);
	}

	String token() {
		return this.claimed.token();
	}

	/**
	 * Whether this first delivery comes later than the message's time to live after its due time, on the server's
	 * clock (the claim's time plus what this JVM measured since). Redeliveries are not checked: the message
	 * started before.
	 */
	boolean isExpired() {
		if (this.timeToLiveMillis <= 0 || this.claimed.deliveries() > 1) {
			return false;
		}
		long serverNow = this.deliveredAtMillis + (System.nanoTime() - this.receivedNanos) / 1_000_000;
		return serverNow - this.claimed.dueMillis() > this.timeToLiveMillis;
	}

	/**
	 * Dead-letters the delivery as {@value DeadLetter#EXPIRED}. A failure is logged: the message stays in flight
	 * and comes back after the visibility timeout.
	 */
	CompletionStage<Void> expireAsync() {
		QueueSpec spec = this.queue.spec();
		return settle("dead-letter", () -> this.queue.parts().scripts.deadLetter(this.queue.keys(), id(), token(),
				DeadLetter.EXPIRED, spec, null), (outcome) -> this.queue.parts().listeners.notify((l) -> {
					l.onExpired(this.queue.name());
					l.onDeadLettered(this.queue.name(), DeadLetter.EXPIRED);
				})).whenComplete((done, failure) -> {
					if (failure != null) {
						this.queue.parts().outages.warn(Stages.unwrap(failure),
								"an expired message is dead-lettered after its visibility timeout");
					}
				});
	}

	/** Marks the handler's thread as running this delivery; a cancel asked for before interrupts it at once. */
	void started() {
		synchronized (this.running) {
			this.runner = Thread.currentThread();
			if (this.cancelRequested) {
				this.runner.interrupt();
			}
		}
	}

	/**
	 * Marks the handler finished, on its thread. A cancel's interrupt is this delivery's, not the thread's owner's:
	 * it is cleared, so that the thread takes the next message.
	 * @return whether a cancel was asked for
	 */
	boolean finished() {
		synchronized (this.running) {
			this.runner = null;
			if (this.cancelRequested) {
				Thread.interrupted();
			}
			return this.cancelRequested;
		}
	}

	/** A cancel from any instance: interrupts the handler if it runs, or marks it to be interrupted when it starts. */
	void cancelRequested() {
		synchronized (this.running) {
			this.cancelRequested = true;
			if (this.runner != null) {
				this.runner.interrupt();
			}
		}
	}

	/** @return whether a cancel was asked for */
	boolean isCancelRequested() {
		synchronized (this.running) {
			return this.cancelRequested;
		}
	}

	/** The queue's keys with its priority's delayed and ready, where a retry or a release puts it back. */
	private QueueScripts.Keys keys() {
		return this.queue.keys().of(this.claimed.priority());
	}

	boolean isSettled() {
		return this.settled.get();
	}

	@Override
	public void setResult(@Nullable Object result) {
		// Only a flow's child has a parent to read it: any other message's result is neither written nor carried.
		if (this.headers.containsKey(QueueFlow.PARENT_HEADER)) {
			this.result = (result != null) ? QueueScripts.text(this.queue.parts().codec.encode(result)) : null;
		}
	}

	@Override
	public FlowChildren children() {
		return Stages.join(childrenAsync());
	}

	@Override
	public CompletionStage<FlowChildren> childrenAsync() {
		return this.queue.children(id());
	}

	@Override
	public void ack() {
		Stages.join(ackAsync());
	}

	@Override
	public CompletionStage<Void> ackAsync() {
		return ackAsync(false);
	}

	/**
	 * Acks through the queue's {@link AckBatcher}: concurrent acks share script calls, and a lone one goes at once
	 * unless held.
	 * @param held whether the ack waits, unsent, for the next one sent or a flush of the batcher (which the caller
	 * then owes within its linger bound)
	 */
	CompletionStage<Void> ackAsync(boolean held) {
		AckBatcher batcher = this.queue.state().ackBatcher(this.queue.parts().scripts);
		return settle("ack", () -> held ? batcher.hold(id(), token(), this.result)
				: batcher.ack(id(), token(), this.result), (outcome) -> {
					if (!this.queue.parts().listeners.isEmpty()) {
						Duration processing = Duration.ofNanos(System.nanoTime() - this.receivedNanos);
						this.queue.parts().listeners.notify((l) -> l.onAcked(this.queue.name(), processing));
					}
				});
	}

	@Override
	public void retry(String reason) {
		Objects.requireNonNull(reason, "reason must not be null");
		Stages.join(retryAsync(this.queue.spec().jitteredBackoff(deliveryCount()), reason));
	}

	@Override
	public void retry(Duration delay) {
		Stages.join(retryAsync(delay, "retried by the consumer"));
	}

	@Override
	public CompletionStage<Void> retryAsync(Duration delay, String reason) {
		Objects.requireNonNull(delay, "delay must not be null");
		Objects.requireNonNull(reason, "reason must not be null");
		if (delay.isNegative()) {
			throw new IllegalArgumentException("delay must not be negative, was " + delay);
		}
		QueueSpec spec = this.queue.spec();
		String stored = "delivery " + deliveryCount() + " of " + spec.maxDeliveries() + " failed: " + reason;
		return settle("retry", () -> this.queue.parts().scripts.retry(keys(), id(), token(),
				delay.toMillis(), spec, stored, null), (outcome) -> {
					if (outcome == Settled.DEAD_LETTERED) {
						this.queue.parts().listeners.notify((l) -> l.onDeadLettered(this.queue.name(), stored));
					}
					else {
						this.queue.parts().listeners.notify((l) -> l.onRetried(this.queue.name(), delay));
					}
				});
	}

	@Override
	public void deadLetter(String reason) {
		Stages.join(deadLetterAsync(reason));
	}

	@Override
	public CompletionStage<Void> deadLetterAsync(String reason) {
		Objects.requireNonNull(reason, "reason must not be null");
		QueueSpec spec = this.queue.spec();
		return settle("dead-letter", () -> this.queue.parts().scripts.deadLetter(this.queue.keys(), id(), token(),
				reason, spec, null),
				(outcome) -> this.queue.parts().listeners.notify((l) -> l.onDeadLettered(this.queue.name(), reason)));
	}

	/** Gives the delivery back at once, uncounted: a stopping container's messages. */
	CompletionStage<Void> releaseAsync() {
		return settle("release", () -> this.queue.parts().scripts.release(keys(), id(), token(),
				this.queue.spec().groups() != null, null),
				(outcome) -> {
				});
	}

	@Override
	public void extendVisibility(Duration visibility) {
		Stages.join(extendVisibilityAsync(visibility));
	}

	@Override
	public CompletionStage<Void> extendVisibilityAsync(Duration visibility) {
		Objects.requireNonNull(visibility, "visibility must not be null");
		if (visibility.toMillis() < 1) {
			throw new IllegalArgumentException("visibility must be at least 1ms, was " + visibility);
		}
		return this.queue.parts().scripts
			.extend(this.queue.keys(), List.<String[]>of(new String[] { id(), token() }), visibility.toMillis(), null)
			.handle((extended, failure) -> {
				if (failure != null) {
					throw this.queue.failed(failure);
				}
				if (!extended[0]) {
					this.queue.parts().listeners.notify((l) -> l.onStale(this.queue.name(), "extend"));
					throw new CompletionException(new StaleDeliveryException(this.queue.name(), id(), "extend"));
				}
				return null;
			});
	}

	private CompletionStage<Void> settle(String operation,
			java.util.function.Supplier<CompletionStage<Settlement>> call, java.util.function.Consumer<Settled> done) {
		if (!this.settled.compareAndSet(false, true)) {
			throw new IllegalStateException("Message " + id() + " of queue '" + this.queue.name()
					+ "' was settled already by this delivery");
		}
		CompletionStage<Settlement> stage;
		try {
			stage = call.get();
		}
		catch (RuntimeException ex) {
			this.settled.set(false);
			throw ex;
		}
		return stage.handle((settlement, failure) -> {
			if (failure != null) {
				// Not applied (or unknown): the consumer may try again; a replay of an applied one is harmless.
				this.settled.set(false);
				throw this.queue.failed(failure);
			}
			Settled outcome = settlement.outcome();
			if (outcome == Settled.STALE) {
				this.queue.parts().listeners.notify((l) -> l.onStale(this.queue.name(), operation));
				throw new CompletionException(new StaleDeliveryException(this.queue.name(), id(), operation));
			}
			if (outcome == Settled.CANCELLED) {
				// Cancelled while in flight: whatever the handler did, the script dead-lettered it as cancelled.
				this.queue.parts().listeners.notify((l) -> {
					l.onCancelled(this.queue.name());
					l.onDeadLettered(this.queue.name(), DeadLetter.CANCELLED);
				});
			}
			else {
				done.accept(outcome);
			}
			this.queue.reportWorkflow(settlement);
			return null;
		});
	}

	@Override
	public String toString() {
		return "QueueMessage[queue=" + this.queue.name() + ", id=" + id() + ", delivery=" + deliveryCount() + "]";
	}

}
