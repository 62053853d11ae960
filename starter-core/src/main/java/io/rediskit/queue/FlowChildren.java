package io.rediskit.queue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * What the children of a flow's parent did, from {@link QueueMessage#children()}: per child, in the order they were
 * enqueued, whether it succeeded (with the result its handler gave, see {@link QueueMessage#setResult(Object)}),
 * failed for good (with the reason), or has not finished (only under {@link ChildFailurePolicy#CONTINUE}). Results
 * are decoded with the queue's JSON mapper, as payloads are.
 */
public final class FlowChildren {

	private static final FlowChildren NONE = new FlowChildren(List.of(), null);

	private final List<Child> children;

	private final @Nullable PayloadCodec codec;

	FlowChildren(List<Child> children, @Nullable PayloadCodec codec) {
		this.children = List.copyOf(children);
		this.codec = codec;
	}

	static FlowChildren none() {
		return NONE;
	}

	/** @return every child, in the order they were enqueued; empty for a message that is not a flow's parent */
	public List<Child> all() {
		return this.children;
	}

	/**
	 * @param type the results' type
	 * @param <R> the results' type
	 * @return the results of the children that succeeded with one, by child id, in order
	 */
	public <R> Map<String, R> results(Class<R> type) {
		Objects.requireNonNull(type, "type must not be null");
		Map<String, R> results = new LinkedHashMap<>();
		for (Child child : this.children) {
			if (child.state() == State.SUCCEEDED && child.resultJson() != null && this.codec != null) {
				results.put(child.id(), this.codec.decode(QueueScripts.utf8(child.resultJson()), type, Long.MAX_VALUE));
			}
		}
		return results;
	}

	/** @return the reasons of the children that failed for good, by child id, in order */
	public Map<String, String> failures() {
		Map<String, String> failures = new LinkedHashMap<>();
		for (Child child : this.children) {
			if (child.state() == State.FAILED) {
				failures.put(child.id(), Objects.requireNonNull(child.failure()));
			}
		}
		return failures;
	}

	/** @return whether every child succeeded */
	public boolean allSucceeded() {
		return this.children.stream().allMatch((child) -> child.state() == State.SUCCEEDED);
	}

	/**
	 * One child.
	 * @param id its id
	 * @param state what it did
	 * @param resultJson its result as JSON, or {@code null} (none, or not succeeded)
	 * @param failure why it failed, or {@code null}
	 */
	public record Child(String id, State state, @Nullable String resultJson, @Nullable String failure) {
	}

	/** What a child did. */
	public enum State {

		/** Not finished: delayed, ready, in flight or retrying. */
		PENDING,

		/** Acknowledged. */
		SUCCEEDED,

		/** Dead-lettered or cancelled. */
		FAILED

	}

}
