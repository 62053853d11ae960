package io.rediskit.queue;

/** An enqueued payload's JSON is larger than the queue's {@link QueueSpec#maxPayloadSize()}; nothing was enqueued. */
public class PayloadTooLargeException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	/**
	 * @param queue the queue name
	 * @param size the encoded size in bytes
	 * @param max the limit in bytes
	 */
	public PayloadTooLargeException(String queue, long size, long max) {
		super("Payload of " + size + " bytes is larger than the " + max + " bytes queue '" + queue
				+ "' accepts (max-payload-size); nothing was enqueued");
	}

}
