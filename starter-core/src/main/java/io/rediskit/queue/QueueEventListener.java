package io.rediskit.queue;

import java.time.Duration;

/**
 * Observes queue events, for metrics and logging. Methods have empty defaults; they run on the caller's thread
 * or the driver's, so they must be fast and must not block. An exception thrown by a listener is logged and
 * ignored. ({@code QueueListener} is the annotation that marks consumer methods, hence this name.)
 * <p>
 * {@code queue} is the configured queue name, safe as a metric tag; reasons are free text, never tags.
 */
public interface QueueEventListener {

	/** A listener that does nothing. */
	QueueEventListener NONE = new QueueEventListener() {
	};

	/**
	 * Messages were added (duplicates not counted: {@link #onDeduplicated}).
	 * @param queue the queue name
	 * @param count how many
	 */
	default void onEnqueued(String queue, int count) {
	}

	/**
	 * Enqueues changed nothing or replaced a waiting message, under their {@link Deduplication}.
	 * @param queue the queue name
	 * @param outcome {@link EnqueueResult.Outcome#DUPLICATE} or {@link EnqueueResult.Outcome#REPLACED}
	 * @param count how many
	 */
	default void onDeduplicated(String queue, EnqueueResult.Outcome outcome, int count) {
	}

	/**
	 * A flow was added: its parent, waiting for its children, and the children (counted in {@link #onEnqueued} too).
	 * @param queue the queue name
	 * @param children how many children
	 */
	default void onFlowEnqueued(String queue, int children) {
	}

	/**
	 * A batch was added (its members counted in {@link #onEnqueued} too).
	 * @param queue the queue name
	 * @param members how many members
	 */
	default void onBatchEnqueued(String queue, int members) {
	}

	/**
	 * A flow's waiting parent was released by the end of one of its children: due now (or at its own due time), or
	 * dead-lettered. Told once per release, by the instance whose settling of the child (ack, retry, dead letter,
	 * cancel, visibility timeout) released it in the same script, when that script's reply reaches it: at most once,
	 * not at least once (a reply lost with its connection, or an instance killed right after, leaves it untold; the
	 * parent itself is released all the same). Act on the parent's own delivery, not on this.
	 * @param queue the queue name
	 * @param release how it was released
	 */
	default void onFlowParentReleased(String queue, QueueFlow.ParentRelease release) {
	}

	/**
	 * A batch reached a state ({@link QueueBatch.Event}): its first failure, every member finished, every member
	 * succeeded ({@link QueueBatch.Event#COMPLETE} before {@link QueueBatch.Event#SUCCESS}), whether or not it has a
	 * callback for it. Told once per batch and event, by the instance whose settling of a member reached it, when that
	 * script's reply reaches it: at most once, as {@link #onFlowParentReleased}; the callbacks are the at-least-once
	 * way to act on it.
	 * @param queue the queue name
	 * @param event the state reached
	 */
	default void onBatchEvent(String queue, QueueBatch.Event event) {
	}

	/**
	 * A message was delivered to a consumer.
	 * @param queue the queue name
	 * @param deliveries its deliveries so far, this one included
	 * @param lateness the server's time at the claim minus the due time. For a redelivery the due time is the
	 * retry's, or after a visibility timeout still the first one, so metrics take first deliveries only
	 */
	default void onDelivered(String queue, int deliveries, Duration lateness) {
	}

	/**
	 * A claim left ready messages in the queue because of a limit of the queue: they wait, their delivery count
	 * unchanged. A message held back over several claims is counted by each.
	 * @param queue the queue name
	 * @param reason {@code max-in-flight}, {@code rate-limit} (the queue's limits), {@code group-limit} or
	 * {@code group-rate} (the limits of the {@link QueueGroups groups} whose turn it was)
	 * @param count how many ready messages the claim could have taken and did not
	 */
	default void onHeldBack(String queue, String reason, long count) {
	}

	/**
	 * A delivery was acknowledged.
	 * @param queue the queue name
	 * @param processing time from its delivery to its acknowledgement, on this JVM's clock
	 */
	default void onAcked(String queue, Duration processing) {
	}

	/**
	 * A delivery failed and the message waits for another.
	 * @param queue the queue name
	 * @param delay the backoff before it is due again
	 */
	default void onRetried(String queue, Duration delay) {
	}

	/**
	 * A message went to the dead-letter queue.
	 * @param queue the queue name
	 * @param reason why (free text)
	 */
	default void onDeadLettered(String queue, String reason) {
	}

	/**
	 * A message was cancelled: removed before its delivery by {@link RedisQueue#cancel(String)} (told by the
	 * instance that cancelled), or, cancelled while in flight, dead-lettered as {@value DeadLetter#CANCELLED}
	 * (told by the instance that settled it, with {@link #onDeadLettered} too).
	 * @param queue the queue name
	 */
	default void onCancelled(String queue) {
	}

	/**
	 * A message was not delivered within its time to live and was dead-lettered as {@value DeadLetter#EXPIRED}
	 * ({@link #onDeadLettered} is told too).
	 * @param queue the queue name
	 */
	default void onExpired(String queue) {
	}

	/**
	 * A consumer settled or extended a stale delivery and was refused.
	 * @param queue the queue name
	 * @param operation {@code ack}, {@code retry}, {@code dead-letter}, {@code release} or {@code extend}
	 */
	default void onStale(String queue, String operation) {
	}

	/**
	 * A listener container could not settle a delivery after its handler ran, because Redis could not be
	 * reached: the message is neither retried nor dead-lettered for it, and comes back after its visibility
	 * timeout (at-least-once), unless the settling reached Redis after all.
	 * @param queue the queue name
	 * @param operation {@code ack} (the handler returned) or {@code retry} (it threw)
	 */
	default void onSettleFailed(String queue, String operation) {
	}

	/**
	 * Redis could not be reached for a queue call.
	 * @param queue the queue name
	 * @param failure what went wrong
	 */
	default void onFailure(String queue, RuntimeException failure) {
	}

}
