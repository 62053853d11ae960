package io.rediskit.queue;

/**
 * What a flow's parent does when one of its children fails for good: dead-lettered after its last delivery, by
 * {@link QueueMessage#deadLetter(String)}, by its visibility timeout on its last delivery, or cancelled. A child
 * that is retried has not failed yet. The parent never runs twice, whatever its children do.
 */
public enum ChildFailurePolicy {

	/**
	 * The parent fails at once: it goes to the dead letters with the reason {@code child <id> failed: <reason>}
	 * without running, and its children that have not finished are cancelled (those not delivered yet are removed,
	 * those in flight are cancelled as {@link RedisQueue#cancel(String)} does). The default, as an exception
	 * propagates. (BullMQ's {@code failParentOnFailure}.)
	 */
	FAIL("F"),

	/**
	 * The failed child counts as finished: the parent runs once every other child has finished (succeeded, or
	 * failed and ignored too), and reads the failure in {@link FlowChildren}. (BullMQ's
	 * {@code ignoreDependencyOnFailure}.)
	 */
	IGNORE("I"),

	/**
	 * The parent becomes due at once, at the first failure, while the other children go on; it reads what has
	 * finished so far in {@link FlowChildren}, and children that finish later do not make it run again. (BullMQ's
	 * {@code continueParentOnFailure}.)
	 */
	CONTINUE("C");

	private final String code;

	ChildFailurePolicy(String code) {
		this.code = code;
	}

	/** @return the letter the scripts store */
	String code() {
		return this.code;
	}

}
