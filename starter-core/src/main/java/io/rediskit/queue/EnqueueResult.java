package io.rediskit.queue;

import java.util.Objects;

/**
 * What one enqueue did, under the {@link Deduplication} in force: from {@link RedisQueue#tryEnqueue}.
 *
 * @param id the id of the message this enqueue stands for: the message added ({@link Outcome#ENQUEUED}; the id
 * given, or a generated one, or {@code <id>~<generated>} when an earlier message of the id was still in the queue),
 * the waiting message whose payload was replaced ({@link Outcome#REPLACED}), or the id given
 * ({@link Outcome#DUPLICATE})
 * @param outcome what happened
 */
public record EnqueueResult(String id, Outcome outcome) {

	/** @throws NullPointerException if a component is missing */
	public EnqueueResult {
		Objects.requireNonNull(id, "id must not be null");
		Objects.requireNonNull(outcome, "outcome must not be null");
	}

	/** @return whether a message was added */
	public boolean enqueued() {
		return this.outcome == Outcome.ENQUEUED;
	}

	/** What an enqueue did. */
	public enum Outcome {

		/** A message was added. */
		ENQUEUED("enqueued"),

		/** Nothing changed: a duplicate under the deduplication in force. */
		DUPLICATE("duplicate"),

		/** A waiting message of the id got this enqueue's payload and due time ({@link Deduplication.Mode#DEBOUNCE}). */
		REPLACED("replaced");

		private final String value;

		Outcome(String value) {
			this.value = value;
		}

		/** @return the lower-case name, as in metric tags */
		public String value() {
			return this.value;
		}

	}

}
