package io.rediskit.queue;

import java.util.List;
import java.util.Objects;

/**
 * A parent message and its children, for {@link RedisQueue#enqueueFlow(QueueFlow)}: the children are enqueued as
 * usual; the parent waits, in no state a claim sees, until every child succeeded (was acknowledged), then becomes
 * due at its own due time (or at once, if that passed) and is delivered like any message, once. Its handler reads
 * the children's results with {@link QueueMessage#children()}. A child that fails for good acts on the parent by
 * {@link #onChildFailure()}; cancelling the waiting parent ({@link RedisQueue#cancel(String)}) cancels the
 * children that have not finished.
 * <p>
 * Parent and children are messages of one queue, so that every key of the flow is in the queue's hash slot and
 * each step is one script on Redis Cluster; a handler tells them apart by {@link #PARENT_HEADER}, which every child
 * carries, or by its payload. Ids of the flow's messages must not be in the queue already: a flow whose parent id
 * is there adds nothing ({@link FlowIds#enqueued()} is {@code false}), one whose child id is there is refused.
 * Deduplication does not apply inside a flow, and a flow's parent is not a child of another flow. Its messages take
 * no {@link QueueEntry#withGroup group}: {@link RedisQueue#enqueueFlow} refuses one with a group.
 *
 * @param parent the parent message
 * @param children the children, at least one, at most {@value ScriptedRedisQueue#MAX_BATCH}
 * @param onChildFailure what a child's failure does to the parent
 * @param <T> the payload type
 */
public record QueueFlow<T>(QueueEntry<T> parent, List<QueueEntry<T>> children, ChildFailurePolicy onChildFailure) {

	/** The header every child carries: its parent's id. */
	public static final String PARENT_HEADER = "rediskit-flow-parent";

	/**
	 * @throws NullPointerException if a component or a child is missing
	 * @throws IllegalArgumentException if there are no children or too many
	 */
	public QueueFlow {
		Objects.requireNonNull(parent, "parent must not be null");
		Objects.requireNonNull(children, "children must not be null");
		Objects.requireNonNull(onChildFailure, "onChildFailure must not be null");
		children = List.copyOf(children);
		if (children.isEmpty() || children.size() > ScriptedRedisQueue.MAX_BATCH) {
			throw new IllegalArgumentException(
					"A flow has 1 to " + ScriptedRedisQueue.MAX_BATCH + " children, was " + children.size());
		}
	}

	/**
	 * A flow that fails its parent when a child fails ({@link ChildFailurePolicy#FAIL}).
	 * @param parent the parent message
	 * @param children the children
	 * @param <T> the payload type
	 * @return the flow
	 */
	public static <T> QueueFlow<T> of(QueueEntry<T> parent, List<QueueEntry<T>> children) {
		return new QueueFlow<>(parent, children, ChildFailurePolicy.FAIL);
	}

	/**
	 * @param policy what a child's failure does to the parent
	 * @return this flow with that policy
	 */
	public QueueFlow<T> onChildFailure(ChildFailurePolicy policy) {
		return new QueueFlow<>(this.parent, this.children, policy);
	}

	/**
	 * How a flow's waiting parent was released, as told to {@link QueueEventListener#onFlowParentReleased}.
	 */
	public enum ParentRelease {

		/** Every child finished (succeeded, or failed under {@link ChildFailurePolicy#IGNORE}): the parent is due. */
		ALL_FINISHED("all-finished"),

		/** A child failed under {@link ChildFailurePolicy#CONTINUE}: the parent is due while the others go on. */
		CONTINUED("continued"),

		/** A child failed under {@link ChildFailurePolicy#FAIL}: the parent was dead-lettered without running. */
		FAILED("failed");

		private final String value;

		ParentRelease(String value) {
			this.value = value;
		}

		/** @return the lower-case name, as in metric tags */
		public String value() {
			return this.value;
		}

	}

	/**
	 * The ids of an enqueued flow.
	 * @param parentId the parent's id
	 * @param childIds the children's ids, in order (empty when nothing was enqueued)
	 * @param enqueued whether the flow was added; {@code false} when its parent id was in the queue already
	 */
	public record FlowIds(String parentId, List<String> childIds, boolean enqueued) {

		/** @throws NullPointerException if a component is missing */
		public FlowIds {
			Objects.requireNonNull(parentId, "parentId must not be null");
			childIds = List.copyOf(childIds);
		}

	}

}
