package io.rediskit.queue;

/**
 * Processes one delivery for a {@link QueueListenerContainer}. Returning normally acknowledges the message
 * (unless the handler settled it itself); throwing fails the delivery: the message is retried with the
 * queue's backoff, or dead-lettered with the exception as the reason after its last delivery. A message
 * {@link RedisQueue#cancel(String) cancelled} while it runs interrupts the handler's thread: stop at the next
 * interruptible wait (or check {@link Thread#isInterrupted()} in long loops); the message is dead-lettered as
 * cancelled whether the handler returns or throws.
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
