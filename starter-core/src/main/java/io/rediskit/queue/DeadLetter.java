package io.rediskit.queue;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A message in a queue's dead-letter queue.
 *
 * @param id the message id
 * @param payload the payload as stored (JSON as enqueued, without the headers; for a payload that could not be
 * decoded, whatever it was, read as UTF-8)
 * @param reason why it was dead-lettered, such as the handler's exception or the decoding error, or
 * {@value #CANCELLED} or {@value #EXPIRED}
 * @param deadLetteredAt when, on the server's clock
 * @param deliveries how often it was delivered
 * @param headers the headers it was enqueued with ({@link QueueEntry#withHeader}), in their order; empty when none
 * or when its envelope could not be read
 * @param priority the priority it was delivered at, which a {@linkplain RedisQueue#redrive redrive} gives it back
 * ({@link QueuePriority#NORMAL} for one dead-lettered before redis-kit recorded it)
 */
public record DeadLetter(String id, String payload, String reason, Instant deadLetteredAt, int deliveries,
		Map<String, String> headers, QueuePriority priority) {

	/** The reason of a message cancelled while it was in flight ({@link RedisQueue#cancel(String)}). */
	public static final String CANCELLED = "cancelled";

	/** The reason of a message not delivered within its time to live ({@link QueueEntry#timeToLive()}). */
	public static final String EXPIRED = "expired";

	/**
	 * @param id the message id
	 * @param payload the payload as stored
	 * @param reason why it was dead-lettered
	 * @param deadLetteredAt when
	 * @param deliveries how often it was delivered
	 * @param headers its headers
	 * @param priority its priority
	 */
	public DeadLetter {
		headers = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(headers,
				"headers must not be null")));
		Objects.requireNonNull(priority, "priority must not be null");
	}

	/**
	 * A dead letter of the normal priority.
	 * @param id the message id
	 * @param payload the payload as stored
	 * @param reason why it was dead-lettered
	 * @param deadLetteredAt when
	 * @param deliveries how often it was delivered
	 * @param headers its headers
	 */
	public DeadLetter(String id, String payload, String reason, Instant deadLetteredAt, int deliveries,
			Map<String, String> headers) {
		this(id, payload, reason, deadLetteredAt, deliveries, headers, QueuePriority.NORMAL);
	}

	/**
	 * A dead letter without headers.
	 * @param id the message id
	 * @param payload the payload as stored
	 * @param reason why it was dead-lettered
	 * @param deadLetteredAt when
	 * @param deliveries how often it was delivered
	 */
	public DeadLetter(String id, String payload, String reason, Instant deadLetteredAt, int deliveries) {
		this(id, payload, reason, deadLetteredAt, deliveries, Map.of());
	}

}
