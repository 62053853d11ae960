package io.rediskit.queue;

/**
 * Processes one delivery for a {@link QueueListenerContainer}. Returning normally acknowledges the message
 * (unless the handler settled it itself); throwing fails the delivery: the message is retried with the
 * queue's backoff, or dead-lettered with the exception as the reason after its last delivery.
 *
 * @param <T> the payload type
 */
@FunctionalInterface
public interface QueueHandler<T> {

	/**
	 * @param message the delivery
	 * @throws Exception to fail the delivery
	 */
	void handle(QueueMessage<T> message) throws Exception;

}
