package io.rediskit.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * One delivery of a message. Settle it exactly once: {@link #ack()}, {@link #retry(Duration)} or
 * {@link #deadLetter(String)}; until then it is in flight, hidden from other consumers until its visibility
 * deadline, which {@link #extendVisibility(Duration)} moves.
 * <p>
 * A delivery whose visibility passed may have been taken back and delivered again: its settling calls then
 * throw {@link StaleDeliveryException} and change nothing, so the other delivery's outcome stands. A second
 * settling call on one delivery throws {@link IllegalStateException}.
 *
 * @param <T> the payload type
 */
public interface QueueMessage<T> {

	/** @return the message id */
	String id();

	/** @return the decoded payload */
	T payload();

	/**
	 * @return the headers the message was enqueued with ({@link QueueEntry#withHeader}), in their order; empty
	 * when none
	 */
	default Map<String, String> headers() {
		return Map.of();
	}

	/**
	 * @return the priority this delivery was claimed at: the one it was enqueued with ({@link QueueEntry#withPriority}
	 * or the queue's default), kept through retries; {@link QueuePriority#NORMAL} for a message taken back after its
	 * visibility timeout or redriven from the dead letters, which go back at that priority (see
	 * {@link QueuePriority})
	 */
	default QueuePriority priority() {
		return QueuePriority.NORMAL;
	}

	/** @return deliveries so far, this one included */
	int deliveryCount();

	/** @return when the message became due (for a retried message, when its retry became due) */
	Instant dueAt();

	/** @return when it was delivered, on the server's clock */
	Instant deliveredAt();

	/**
	 * Sets the result the acknowledgement of this delivery records for its flow's parent
	 * ({@link FlowChildren#results(Class)}): for a child of a flow (it carries {@link QueueFlow#PARENT_HEADER}),
	 * written as JSON with the queue's mapper at once, so that a value that cannot be written fails here; for any
	 * other message ignored, unwritten. The last value set before the ack wins.
	 * @param result the result, or {@code null} for none
	 * @throws IllegalArgumentException if it cannot be written as JSON (a child's only)
	 */
	default void setResult(@Nullable Object result) {
		throw new UnsupportedOperationException("results are not supported by " + getClass().getName());
	}

	/**
	 * What the children of this message did, when it is a flow's parent ({@link RedisQueue#enqueueFlow}); one round
	 * trip. Empty for any other message, and for a parent redriven from the dead letters.
	 * @return the children, their results and failures
	 */
	default FlowChildren children() {
		return FlowChildren.none();
	}

	/** @return {@link #children()} without blocking */
	default CompletionStage<FlowChildren> childrenAsync() {
		return java.util.concurrent.CompletableFuture.completedFuture(FlowChildren.none());
	}

	/**
	 * Acknowledges the delivery: the message is done and leaves no data behind.
	 * @throws StaleDeliveryException if the delivery is stale
	 */
	void ack();

	/** @return {@link #ack()} without blocking */
	CompletionStage<Void> ackAsync();

	/**
	 * Fails the delivery with the queue's backoff for its delivery count, or dead-letters it if that was its
	 * last delivery.
	 * @param reason why, kept if the message is dead-lettered
	 * @throws StaleDeliveryException if the delivery is stale
	 */
	void retry(String reason);

	/**
	 * Fails the delivery: the message is due again after {@code delay}, or dead-lettered if that was its last
	 * delivery.
	 * @param delay the delay, not negative
	 * @throws StaleDeliveryException if the delivery is stale
	 */
	void retry(Duration delay);

	/**
	 * {@link #retry(Duration)} without blocking.
	 * @param delay the delay
	 * @param reason why, kept if the message is dead-lettered
	 * @return completes when done; exceptionally with {@link StaleDeliveryException} if stale
	 */
	CompletionStage<Void> retryAsync(Duration delay, String reason);

	/**
	 * Sends the message to the dead-letter queue at once.
	 * @param reason why
	 * @throws StaleDeliveryException if the delivery is stale
	 */
	void deadLetter(String reason);

	/** @param reason why; @return {@link #deadLetter(String)} without blocking */
	CompletionStage<Void> deadLetterAsync(String reason);

	/**
	 * Moves the visibility deadline to the server's now plus {@code visibility}.
	 * @param visibility from now
	 * @throws StaleDeliveryException if the delivery is stale
	 */
	void extendVisibility(Duration visibility);

	/** @param visibility from now; @return {@link #extendVisibility(Duration)} without blocking */
	CompletionStage<Void> extendVisibilityAsync(Duration visibility);

}
