package io.rediskit.queue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import io.rediskit.support.Expiry;
import org.jspecify.annotations.Nullable;

/**
 * One message to enqueue with options: a caller-chosen id (for deduplication), a delay or a due time, headers,
 * a time to live and a priority.
 * <pre>{@code
 * queue.enqueue(QueueEntry.of(new CancelOrder(42)).withId("cancel-42").withDelay(Duration.ofSeconds(30)));
 * queue.enqueue(QueueEntry.of(new Refund(7)).withPriority(QueuePriority.HIGH));
 * }</pre>
 * The message is due at the later of the server's now plus {@code delay} and {@code dueAt}.
 *
 * @param <T> the payload type
 * @param payload the payload
 * @param id the id, or {@code null} for a generated one. 1 to 256 characters. Under the default
 * {@link Deduplication#UNTIL_FINISHED}, while a message with this id is in the queue (in any state, dead-lettered
 * included), enqueueing the id again changes nothing and returns the id; other modes: {@link Deduplication}
 * @param delay delay from the server's now, not negative
 * @param dueAt an absolute due time (compared with the server's clock), or {@code null}
 * @param headers string metadata carried to the consumer ({@link QueueMessage#headers()}), such as a trace id;
 * names of 1 to 256 characters, at most {@value #MAX_HEADERS_SIZE} bytes of names and values in UTF-8 together
 * @param timeToLive how long the message may wait, once due, for its first delivery; a first delivery later than
 * that is dead-lettered with the reason {@value DeadLetter#EXPIRED} and never reaches a consumer. {@code null}:
 * no limit
 * @param priority its priority, or {@code null} for the queue's {@link QueueSpec#defaultPriority() default}
 * @param deduplication what an enqueue of the id does while an earlier message of it is (or was recently) in the
 * queue, or {@code null} for the queue's {@link QueueSpec#deduplication() default}; only for a caller-chosen id
 * @param group the group whose turn delivers the message ({@link #withGroup}), or {@code null} for none
 */
public record QueueEntry<T>(T payload, @Nullable String id, Duration delay, @Nullable Instant dueAt,
		Map<String, String> headers, @Nullable Duration timeToLive, @Nullable QueuePriority priority,
		@Nullable Deduplication deduplication, @Nullable String group) {

	/** Longest caller-chosen id. */
	public static final int MAX_ID_LENGTH = 256;

	/** Most bytes of header names and values together, in UTF-8. */
	public static final int MAX_HEADERS_SIZE = 8192;

	/**
	 * Validates the entry.
	 * @throws IllegalArgumentException if the id is empty or too long, the delay negative, a header name empty or
	 * too long, the headers too large, or the time to live not positive or above {@link Expiry#MAX}
	 */
	public QueueEntry {
		Objects.requireNonNull(payload, "payload must not be null");
		Objects.requireNonNull(delay, "delay must not be null");
		Objects.requireNonNull(headers, "headers must not be null");
		if (delay.isNegative()) {
			throw new IllegalArgumentException("delay must not be negative, was " + delay);
		}
		if (id != null && (id.isEmpty() || id.length() > MAX_ID_LENGTH)) {
			throw new IllegalArgumentException("A message id must be 1 to " + MAX_ID_LENGTH + " characters, was "
					+ id.length());
		}
		if (timeToLive != null && (timeToLive.toMillis() < 1 || timeToLive.compareTo(Expiry.MAX) > 0)) {
			throw new IllegalArgumentException("timeToLive must be between 1ms and " + Expiry.MAX + ", was "
					+ timeToLive);
		}
		headers = checkedHeaders(headers);
		if (group != null) {
			QueueGroups.checkName(group);
		}
	}

	/**
	 * An entry without a group.
	 * @param payload see the component
	 * @param id see the component
	 * @param delay see the component
	 * @param dueAt see the component
	 * @param headers see the component
	 * @param timeToLive see the component
	 * @param priority see the component
	 * @param deduplication see the component
	 */
	public QueueEntry(T payload, @Nullable String id, Duration delay, @Nullable Instant dueAt,
			Map<String, String> headers, @Nullable Duration timeToLive, @Nullable QueuePriority priority,
			@Nullable Deduplication deduplication) {
		this(payload, id, delay, dueAt, headers, timeToLive, priority, deduplication, null);
	}

	/**
	 * An entry without headers or time to live.
	 * @param payload the payload
	 * @param id the id, or {@code null} for a generated one
	 * @param delay delay from the server's now
	 * @param dueAt an absolute due time, or {@code null}
	 */
	public QueueEntry(T payload, @Nullable String id, Duration delay, @Nullable Instant dueAt) {
		this(payload, id, delay, dueAt, Map.of(), null, null, null);
	}

	/**
	 * An entry with the queue's deduplication.
	 * @param payload the payload
	 * @param id the id, or {@code null} for a generated one
	 * @param delay delay from the server's now
	 * @param dueAt an absolute due time, or {@code null}
	 * @param headers string metadata carried to the consumer
	 * @param timeToLive how long the message may wait, once due, for its first delivery, or {@code null}
	 * @param priority its priority, or {@code null} for the queue's default
	 */
	public QueueEntry(T payload, @Nullable String id, Duration delay, @Nullable Instant dueAt,
			Map<String, String> headers, @Nullable Duration timeToLive, @Nullable QueuePriority priority) {
		this(payload, id, delay, dueAt, headers, timeToLive, priority, null);
	}

	private static Map<String, String> checkedHeaders(Map<String, String> headers) {
		if (headers.isEmpty()) {
			return Map.of();
		}
		long size = 0;
		Map<String, String> copy = new LinkedHashMap<>();
		for (Map.Entry<String, String> header : headers.entrySet()) {
			String name = Objects.requireNonNull(header.getKey(), "header names must not be null");
			String value = Objects.requireNonNull(header.getValue(), () -> "header '" + name + "' must not be null");
			if (name.isEmpty() || name.length() > MAX_ID_LENGTH) {
				throw new IllegalArgumentException("A header name must be 1 to " + MAX_ID_LENGTH
						+ " characters, was " + name.length());
			}
			size += name.getBytes(StandardCharsets.UTF_8).length + value.getBytes(StandardCharsets.UTF_8).length;
			copy.put(name, value);
		}
		if (size > MAX_HEADERS_SIZE) {
			throw new IllegalArgumentException("headers must be at most " + MAX_HEADERS_SIZE
					+ " bytes of names and values in UTF-8, were " + size);
		}
		return Collections.unmodifiableMap(copy);
	}

	/**
	 * @param <T> the payload type
	 * @param payload the payload
	 * @return an entry due now, with a generated id
	 */
	public static <T> QueueEntry<T> of(T payload) {
		return new QueueEntry<>(payload, null, Duration.ZERO, null, Map.of(), null, null, null, null);
	}

	/** @param id the caller-chosen id; @return a copy with it */
	public QueueEntry<T> withId(String id) {
		return new QueueEntry<>(this.payload, Objects.requireNonNull(id, "id must not be null"), this.delay,
				this.dueAt, this.headers, this.timeToLive, this.priority,
				this.deduplication, this.group);
	}

	/** @param delay delay from the server's now; @return a copy with it */
	public QueueEntry<T> withDelay(Duration delay) {
		return new QueueEntry<>(this.payload, this.id, delay, this.dueAt, this.headers, this.timeToLive, this.priority,
				this.deduplication, this.group);
	}

	/** @param dueAt the due time; @return a copy with it */
	public QueueEntry<T> withDueAt(Instant dueAt) {
		return new QueueEntry<>(this.payload, this.id, this.delay, Objects.requireNonNull(dueAt, "dueAt"),
				this.headers, this.timeToLive, this.priority,
				this.deduplication, this.group);
	}

	/**
	 * @param name the header's name
	 * @param value its value
	 * @return a copy with the header added, or replaced if the name was there
	 */
	public QueueEntry<T> withHeader(String name, String value) {
		Map<String, String> more = new LinkedHashMap<>(this.headers);
		more.put(Objects.requireNonNull(name, "name must not be null"),
				Objects.requireNonNull(value, "value must not be null"));
		return new QueueEntry<>(this.payload, this.id, this.delay, this.dueAt, more, this.timeToLive, this.priority,
				this.deduplication, this.group);
	}

	/** @param headers the headers, replacing any; @return a copy with them */
	public QueueEntry<T> withHeaders(Map<String, String> headers) {
		return new QueueEntry<>(this.payload, this.id, this.delay, this.dueAt, headers, this.timeToLive,
				this.priority, this.deduplication, this.group);
	}

	/**
	 * @param timeToLive how long the message may wait, once due, for its first delivery
	 * @return a copy with it
	 */
	public QueueEntry<T> withTimeToLive(Duration timeToLive) {
		return new QueueEntry<>(this.payload, this.id, this.delay, this.dueAt, this.headers,
				Objects.requireNonNull(timeToLive, "timeToLive must not be null"), this.priority, this.deduplication, this.group);
	}

	/**
	 * @param priority the priority, among the queue's ready messages (see {@link QueuePriority})
	 * @return a copy with it
	 */
	public QueueEntry<T> withPriority(QueuePriority priority) {
		return new QueueEntry<>(this.payload, this.id, this.delay, this.dueAt, this.headers, this.timeToLive,
				Objects.requireNonNull(priority, "priority must not be null"), this.deduplication, this.group);
	}

	/**
	 * @param deduplication what an enqueue of this entry's id does while an earlier message of the id is (or was
	 * recently) in the queue (see {@link Deduplication})
	 * @return a copy with it
	 */
	public QueueEntry<T> withDeduplication(Deduplication deduplication) {
		return new QueueEntry<>(this.payload, this.id, this.delay, this.dueAt, this.headers, this.timeToLive,
				this.priority, Objects.requireNonNull(deduplication, "deduplication must not be null"), this.group);
	}

	/**
	 * @param group the group (a tenant, a customer) whose turn in the queue's rotation delivers this message: 1 to
	 * {@value QueueGroups#MAX_NAME_LENGTH} characters, no control characters, stored as data and never evaluated; the
	 * queue must have groups ({@link QueueSpec#groups()}) and the message the normal priority (see {@link QueueGroups})
	 * @return a copy with it
	 * @throws IllegalArgumentException if the name is not a valid group name
	 */
	public QueueEntry<T> withGroup(String group) {
		return new QueueEntry<>(this.payload, this.id, this.delay, this.dueAt, this.headers, this.timeToLive,
				this.priority, this.deduplication, QueueGroups.checkName(group));
	}

}
