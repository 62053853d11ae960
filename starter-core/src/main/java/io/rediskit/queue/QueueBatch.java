package io.rediskit.queue;

import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A set of messages followed as one, for {@link RedisQueue#enqueueBatch(QueueBatch)}, with callbacks: messages of
 * the same queue that Redis enqueues when the batch reaches a state, in the same script as the settling that made
 * it so, exactly once per batch whatever the number of instances and consumers (each callback is then delivered
 * at least once, like any message, under the deterministic id {@code <batch id>:<event>} with the headers
 * {@link #BATCH_HEADER} and {@link #EVENT_HEADER}, so that its handler can recognise a redelivery).
 * <ul>
 * <li>{@code onDeath}: the first member failed for good (dead-lettered, or cancelled);</li>
 * <li>{@code onComplete}: every member finished, succeeded or failed for good;</li>
 * <li>{@code onSuccess}: every member succeeded (was acknowledged); with {@code onComplete}, after it.</li>
 * </ul>
 * Members carry {@link #BATCH_HEADER}. Progress is readable with {@link RedisQueue#batchProgress(String)}. The
 * member ids must not be in the queue already; a batch whose id exists adds nothing (an idempotent retry). Members
 * and callbacks take no {@link QueueEntry#withGroup group}: {@link RedisQueue#enqueueBatch} refuses one with a group.
 *
 * @param id the batch id, or {@code null} for a generated one
 * @param members the messages, at least one, at most {@value ScriptedRedisQueue#MAX_BATCH}
 * @param onDeath enqueued when the first member fails for good, or {@code null}
 * @param onComplete enqueued when every member finished, or {@code null}
 * @param onSuccess enqueued when every member succeeded, or {@code null}
 * @param <T> the payload type
 */
public record QueueBatch<T>(@Nullable String id, List<QueueEntry<T>> members, @Nullable QueueEntry<T> onDeath,
		@Nullable QueueEntry<T> onComplete, @Nullable QueueEntry<T> onSuccess) {

	/** The header a member and a callback carry: the batch id. */
	public static final String BATCH_HEADER = "rediskit-batch";

	/** The header a callback carries: its {@link Event#value()}, {@code death}, {@code complete} or {@code success}. */
	public static final String EVENT_HEADER = "rediskit-batch-event";

	/**
	 * @throws NullPointerException if the members or one of them are missing
	 * @throws IllegalArgumentException if there are no members or too many, or the id is blank
	 */
	public QueueBatch {
		Objects.requireNonNull(members, "members must not be null");
		members = List.copyOf(members);
		if (members.isEmpty() || members.size() > ScriptedRedisQueue.MAX_BATCH) {
			throw new IllegalArgumentException(
					"A batch has 1 to " + ScriptedRedisQueue.MAX_BATCH + " members, was " + members.size());
		}
		if (id != null && id.isBlank()) {
			throw new IllegalArgumentException("id must not be blank");
		}
	}

	/**
	 * @param members the messages
	 * @param <T> the payload type
	 * @return a batch with a generated id and no callbacks
	 */
	public static <T> QueueBatch<T> of(List<QueueEntry<T>> members) {
		return new QueueBatch<>(null, members, null, null, null);
	}

	/** @param id the batch id; @return this batch with that id */
	public QueueBatch<T> withId(String id) {
		return new QueueBatch<>(Objects.requireNonNull(id, "id must not be null"), this.members, this.onDeath,
				this.onComplete, this.onSuccess);
	}

	/** @param callback the message; @return this batch with that callback when the first member dies */
	public QueueBatch<T> onDeath(QueueEntry<T> callback) {
		return new QueueBatch<>(this.id, this.members, callback, this.onComplete, this.onSuccess);
	}

	/** @param callback the message; @return this batch with that callback when every member finished */
	public QueueBatch<T> onComplete(QueueEntry<T> callback) {
		return new QueueBatch<>(this.id, this.members, this.onDeath, callback, this.onSuccess);
	}

	/** @param callback the message; @return this batch with that callback when every member succeeded */
	public QueueBatch<T> onSuccess(QueueEntry<T> callback) {
		return new QueueBatch<>(this.id, this.members, this.onDeath, this.onComplete, callback);
	}

	/**
	 * A state a batch reaches, once per batch: what enqueues its callback, and what
	 * {@link QueueEventListener#onBatchEvent} is told.
	 */
	public enum Event {

		/** The first member failed for good (dead-lettered, or cancelled): {@code onDeath}. */
		DEATH("death"),

		/** Every member finished, succeeded or failed for good: {@code onComplete}. */
		COMPLETE("complete"),

		/** Every member succeeded: {@code onSuccess}. */
		SUCCESS("success");

		private final String value;

		Event(String value) {
			this.value = value;
		}

		/** @return the lower-case name: the value of {@link #EVENT_HEADER} on its callback, as in metric tags */
		public String value() {
			return this.value;
		}

	}

}
