package io.rediskit.queue;

/**
 * A delivery was settled or extended with a token that is no longer the message's: its visibility timeout
 * passed and the message went back to the queue (and maybe to another consumer), or it was settled already
 * through another path. Like a lock's lost lease: the work may have been done twice, and this consumer's
 * outcome was not applied.
 */
public class StaleDeliveryException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final String queue;

	private final String messageId;

	/**
	 * @param queue the queue name
	 * @param messageId the message id
	 * @param operation what was refused, such as {@code ack}
	 */
	public StaleDeliveryException(String queue, String messageId, String operation) {
		super("Cannot " + operation + " message " + messageId + " of queue '" + queue
				+ "': this delivery is stale (its visibility timeout passed and the message was taken back, and "
				+ "maybe delivered again, or it was settled already)");
		this.queue = queue;
		this.messageId = messageId;
	}

	/** @return the queue name */
	public String getQueue() {
		return this.queue;
	}

	/** @return the message id */
	public String getMessageId() {
		return this.messageId;
	}

}
