package io.rediskit.queue;

/**
 * The priority of a message, chosen per message with {@link QueueEntry#withPriority} or per queue with
 * {@link QueueSpec#withDefaultPriority}.
 * <p>
 * <b>Weighted, not strict.</b> Ready messages of each priority wait in a list of their own, and claims take from
 * the lists in a fixed weighted turn of {@value #TURN_LENGTH} picks: {@code HIGH} {@value #HIGH_WEIGHT},
 * {@code NORMAL} {@value #NORMAL_WEIGHT}, {@code LOW} {@value #LOW_WEIGHT}. A turn whose list is empty goes to
 * the next priority in the turn that has messages. So while a priority has ready messages it gets at least its
 * weight's share of the deliveries whatever floods the others: {@code HIGH} at least 6 in 10 (6 in 7 against
 * {@code LOW} alone), and {@code LOW} at least 1 in 10 (1 in 7 against {@code HIGH} alone). Strict priorities
 * would let a steady flow of high-priority messages starve the low ones for good, which the teams who come from
 * Sidekiq's and rqueue's weighted queues do not expect. Within a priority, messages are claimed in due order.
 * <p>
 * A message keeps its priority through retries and when a stopping container gives it back; a message taken
 * back after its visibility timeout, and a redriven dead letter, are delivered at {@code NORMAL}.
 */
public enum QueuePriority {

	/** Delivered first: at least 6 of every 10 deliveries while it has ready messages. */
	HIGH("high"),

	/** The default: at least 3 of every 10 deliveries while it has ready messages. */
	NORMAL("normal"),

	/** Delivered last: at least 1 of every 10 deliveries while it has ready messages. */
	LOW("low");

	/** Turns of {@link #HIGH} in every {@value #TURN_LENGTH}. */
	public static final int HIGH_WEIGHT = 6;

	/** Turns of {@link #NORMAL} in every {@value #TURN_LENGTH}. */
	public static final int NORMAL_WEIGHT = 3;

	/** Turns of {@link #LOW} in every {@value #TURN_LENGTH}. */
	public static final int LOW_WEIGHT = 1;

	/** Length of one weighted turn. */
	public static final int TURN_LENGTH = HIGH_WEIGHT + NORMAL_WEIGHT + LOW_WEIGHT;

	/**
	 * The weighted turn the claim script follows, one letter per pick ({@code h}, {@code n}, {@code l}): spread
	 * out, so that a claim of a few messages already gets every priority its share.
	 */
	static final String TURN = "hnhlhnhnhh";

	private final String value;

	QueuePriority(String value) {
		this.value = value;
	}

	/** @return the lower-case name, as in YAML and metric tags */
	public String value() {
		return this.value;
	}

	/** @return the letter the scripts know this priority by */
	String code() {
		return this.value.substring(0, 1);
	}

	static QueuePriority ofCode(String code) {
		return switch (code) {
			case "h" -> HIGH;
			case "l" -> LOW;
			default -> NORMAL;
		};
	}

}
