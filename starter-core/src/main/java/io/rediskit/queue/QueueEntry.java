package io.rediskit.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * One message to enqueue with options: a caller-chosen id (for deduplication), a delay or a due time, a
 * priority.
 * <pre>{@code
 * queue.enqueue(QueueEntry.of(new CancelOrder(42)).withId("cancel-42").withDelay(Duration.ofSeconds(30)));
 * queue.enqueue(QueueEntry.of(new Refund(7)).withPriority(QueuePriority.HIGH));
 * }</pre>
 * The message is due at the later of the server's now plus {@code delay} and {@code dueAt}.
 *
 * @param <T> the payload type
 * @param payload the payload
 * @param id the id, or {@code null} for a generated one. While a message with this id is in the queue (in any
 * state, dead-lettered included), enqueueing the id again changes nothing and returns the id. 1 to 256
 * characters
 * @param delay delay from the server's now, not negative
 * @param dueAt an absolute due time (compared with the server's clock), or {@code null}
 * @param priority its priority, or {@code null} for the queue's {@link QueueSpec#defaultPriority() default}
 */
public record QueueEntry<T>(T payload, @Nullable String id, Duration delay, @Nullable Instant dueAt,
		@Nullable QueuePriority priority) {

	/** Longest caller-chosen id. */
	public static final int MAX_ID_LENGTH = 256;

	/**
	 * Validates the entry.
	 * @throws IllegalArgumentException if the id is empty or too long or the delay negative
	 */
	public QueueEntry {
		Objects.requireNonNull(payload, "payload must not be null");
		Objects.requireNonNull(delay, "delay must not be null");
		if (delay.isNegative()) {
			throw new IllegalArgumentException("delay must not be negative, was " + delay);
		}
		if (id != null && (id.isEmpty() || id.length() > MAX_ID_LENGTH)) {
			throw new IllegalArgumentException("A message id must be 1 to " + MAX_ID_LENGTH + " characters, was "
					+ id.length());
		}
	}

	/**
	 * An entry at the queue's default priority.
	 * @param payload the payload
	 * @param id the id, or {@code null}
	 * @param delay delay from the server's now
	 * @param dueAt an absolute due time, or {@code null}
	 */
	public QueueEntry(T payload, @Nullable String id, Duration delay, @Nullable Instant dueAt) {
		this(payload, id, delay, dueAt, null);
	}

	/**
	 * @param <T> the payload type
	 * @param payload the payload
	 * @return an entry due now, with a generated id
	 */
	public static <T> QueueEntry<T> of(T payload) {
		return new QueueEntry<>(payload, null, Duration.ZERO, null, null);
	}

	/** @param id the caller-chosen id; @return a copy with it */
	public QueueEntry<T> withId(String id) {
		return new QueueEntry<>(this.payload, Objects.requireNonNull(id, "id must not be null"), this.delay,
				this.dueAt, this.priority);
	}

	/** @param delay delay from the server's now; @return a copy with it */
	public QueueEntry<T> withDelay(Duration delay) {
		return new QueueEntry<>(this.payload, this.id, delay, this.dueAt, this.priority);
	}

	/** @param dueAt the due time; @return a copy with it */
	public QueueEntry<T> withDueAt(Instant dueAt) {
		return new QueueEntry<>(this.payload, this.id, this.delay, Objects.requireNonNull(dueAt, "dueAt"),
				this.priority);
	}

	/**
	 * @param priority the priority, among the queue's ready messages (see {@link QueuePriority})
	 * @return a copy with it
	 */
	public QueueEntry<T> withPriority(QueuePriority priority) {
		return new QueueEntry<>(this.payload, this.id, this.delay, this.dueAt,
				Objects.requireNonNull(priority, "priority must not be null"));
	}

}
