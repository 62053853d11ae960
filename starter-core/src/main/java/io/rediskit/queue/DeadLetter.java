package io.rediskit.queue;

import java.time.Instant;

/**
 * A message in a queue's dead-letter queue.
 *
 * @param id the message id
 * @param payload the payload as stored (JSON as enqueued; for a payload that could not be decoded, whatever it
 * was, read as UTF-8)
 * @param reason why it was dead-lettered, such as the handler's exception or the decoding error
 * @param deadLetteredAt when, on the server's clock
 * @param deliveries how often it was delivered
 */
public record DeadLetter(String id, String payload, String reason, Instant deadLetteredAt, int deliveries) {
}
