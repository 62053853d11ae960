package io.rediskit.queue;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.Names;

/**
 * Fair sharing between groups (tenants, customers) of one queue: a message enqueued with
 * {@link QueueEntry#withGroup(String) a group} waits in its group, and claims take the groups in turn, round-robin,
 * one message per group per turn, so that one group's flood of 100,000 never holds back another group's 10.
 * <p>
 * <b>The rotation.</b> Every group with ready messages has a place in the turn; a claim serves the group at the head
 * one message and moves it to the tail (it leaves the turn when it has no ready message left, and joins at the tail
 * when one arrives). The messages enqueued without a group take their turns as one more group. Strict round-robin,
 * not weighted: a group's share of the deliveries is one turn in each round, whatever its backlog.
 * <p>
 * <b>With priorities and the queue's limits.</b> A grouped message has the {@link QueuePriority#NORMAL normal
 * priority} (a high or low one is refused at enqueue): the priorities take their weighted turns as before, and the
 * normal priority's turns go through the groups' rotation. The queue's own limits ({@link QueueSpec#maxInFlight()},
 * {@link QueueSpec#rateLimit()}) decide first how many messages a claim may take; the groups' limits then decide which.
 * <p>
 * <b>Per-group concurrency.</b> {@link #maxInFlight()} bounds the messages of one group in flight across every
 * consumer (0: no limit), {@link #overrides()} by group name. A group at its limit keeps its place in the turn and is
 * skipped, without holding back any other group; its messages stay ready, their delivery counts unchanged, and the
 * claim reports them as held back for {@code group-limit}.
 * <p>
 * <b>Per-group rate.</b> {@link #rateLimit()} bounds the messages of one group claimed in any window of
 * {@link #rateLimitPeriod()} across every consumer (0: no limit), {@link #rateLimitOverrides()} by group name: an
 * exact sliding log on the server's clock, kept by the claim script in the same step as the claim (one round trip).
 * A group that has had its share of the window keeps its place in the turn and is skipped, as at its in-flight limit;
 * the claim reports its messages as held back for {@code group-rate}, and a consumer that found nothing else to
 * claim looks again when the oldest entry of the groups' log leaves the window (or at its poll interval, if
 * sooner). A group's in-flight limit is checked first, then its rate. The queue's own rate limit counts every
 * message claimed, grouped or not, and only those actually claimed: a claim the groups hold back spends none of
 * it.
 * <p>
 * <b>What a queue without groups pays.</b> Next to nothing: the claim and promote scripts read no group key of a
 * queue whose spec has no {@code QueueGroups} ({@link QueueSpec#groups()} {@code null}), and a script that removes a
 * message's data removes its entry in the group hash too, a no-op on a key that does not exist. Every instance of an
 * application must therefore agree on whether a queue has groups, as on the rest of its spec.
 * <p>
 * <b>Where the rotation steps aside.</b> A grouped message given back to the queue at once (a consumer stopping, or
 * its visibility timeout passing) goes to the head of the normal ready list as an ungrouped message would, and is
 * claimed next, outside the rotation and its group's limits; a retried one comes back through its group. Flows and
 * batches take no group. A claim looks at most {@value #SCAN} groups in turn order, so with more groups than that
 * at their limits the ones beyond wait for a later claim.
 *
 * @param maxInFlight most messages of one group in flight across consumers, 0 for no limit
 * @param overrides a group's own limit by its name, instead of {@code maxInFlight}
 * @param rateLimit most messages of one group claimed in any window of {@code rateLimitPeriod} across consumers, 0
 * to {@value QueueSpec#MAX_RATE_LIMIT}; 0 for no limit
 * @param rateLimitPeriod the window of {@code rateLimit} and of every group's own, from 1 ms to 1 day
 * @param rateLimitOverrides a group's own rate limit by its name, instead of {@code rateLimit} (0 for none)
 */
public record QueueGroups(int maxInFlight, Map<String, Integer> overrides, long rateLimit, Duration rateLimitPeriod,
		Map<String, Long> rateLimitOverrides) {

	/** Longest group name, in characters: that of every name given in code ({@link Names#requireData}). */
	public static final int MAX_NAME_LENGTH = Names.MAX_DATA_LENGTH;

	/** Most groups a claim looks at, in turn order. */
	public static final int SCAN = 1000;

	/**
	 * Validates the settings.
	 * @throws InvalidSpecException naming the component when a limit is out of range or a name is invalid
	 */
	public QueueGroups {
		if (maxInFlight < 0 || maxInFlight > QueueSpec.MAX_IN_FLIGHT_LIMIT) {
			throw new InvalidSpecException("maxInFlight",
					"must be between 0 (no limit) and " + QueueSpec.MAX_IN_FLIGHT_LIMIT + ", was " + maxInFlight);
		}
		Objects.requireNonNull(overrides, "overrides must not be null");
		for (Map.Entry<String, Integer> override : overrides.entrySet()) {
			String problem = Names.dataProblem("Group", override.getKey());
			if (problem != null) {
				throw new InvalidSpecException("overrides", problem);
			}
			int limit = Objects.requireNonNull(override.getValue(), "an override must not be null");
			if (limit < 0 || limit > QueueSpec.MAX_IN_FLIGHT_LIMIT) {
				throw new InvalidSpecException("overrides", "the limit of group '" + override.getKey()
						+ "' must be between 0 (no limit) and " + QueueSpec.MAX_IN_FLIGHT_LIMIT + ", was " + limit);
			}
		}
		overrides = Map.copyOf(overrides);
		checkRate("rateLimit", "", rateLimit);
		Objects.requireNonNull(rateLimitPeriod, "rateLimitPeriod must not be null");
		if (rateLimitPeriod.compareTo(Duration.ofMillis(1)) < 0 || rateLimitPeriod.compareTo(Duration.ofDays(1)) > 0) {
			throw new InvalidSpecException("rateLimitPeriod",
					"must be between " + Duration.ofMillis(1) + " and " + Duration.ofDays(1) + ", was " + rateLimitPeriod);
		}
		Objects.requireNonNull(rateLimitOverrides, "rateLimitOverrides must not be null");
		for (Map.Entry<String, Long> override : rateLimitOverrides.entrySet()) {
			String problem = Names.dataProblem("Group", override.getKey());
			if (problem != null) {
				throw new InvalidSpecException("rateLimitOverrides", problem);
			}
			checkRate("rateLimitOverrides", "the rate limit of group '" + override.getKey() + "' ",
					Objects.requireNonNull(override.getValue(), "an override must not be null"));
		}
		rateLimitOverrides = Map.copyOf(rateLimitOverrides);
	}

	/**
	 * Groups with in-flight limits and no rate limit.
	 * @param maxInFlight see the component
	 * @param overrides see the component
	 */
	public QueueGroups(int maxInFlight, Map<String, Integer> overrides) {
		this(maxInFlight, overrides, 0, Duration.ofSeconds(1), Map.of());
	}

	private static void checkRate(String component, String what, long limit) {
		if (limit < 0 || limit > QueueSpec.MAX_RATE_LIMIT) {
			throw new InvalidSpecException(component,
					what + "must be between 0 (no limit) and " + QueueSpec.MAX_RATE_LIMIT + ", was " + limit);
		}
	}

	/** @return groups in round-robin with no limit per group */
	public static QueueGroups roundRobin() {
		return new QueueGroups(0, Map.of());
	}

	/** @param maxInFlight see the component; @return a copy with it */
	public QueueGroups withMaxInFlight(int maxInFlight) {
		return new QueueGroups(maxInFlight, this.overrides, this.rateLimit, this.rateLimitPeriod,
				this.rateLimitOverrides);
	}

	/**
	 * @param group a group's name
	 * @param maxInFlight its own limit, 0 for none
	 * @return a copy with it
	 */
	public QueueGroups withMaxInFlight(String group, int maxInFlight) {
		HashMap<String, Integer> more = new HashMap<>(this.overrides);
		more.put(Objects.requireNonNull(group, "group must not be null"), maxInFlight);
		return new QueueGroups(this.maxInFlight, more, this.rateLimit, this.rateLimitPeriod, this.rateLimitOverrides);
	}

	/**
	 * @param rateLimit most messages of one group claimed per period, 0 for none
	 * @param rateLimitPeriod the period, of this limit and of every group's own
	 * @return a copy with them
	 */
	public QueueGroups withRateLimit(long rateLimit, Duration rateLimitPeriod) {
		return new QueueGroups(this.maxInFlight, this.overrides, rateLimit, rateLimitPeriod, this.rateLimitOverrides);
	}

	/**
	 * @param group a group's name
	 * @param rateLimit its own most messages claimed per {@link #rateLimitPeriod()}, 0 for none
	 * @return a copy with it
	 */
	public QueueGroups withRateLimit(String group, long rateLimit) {
		HashMap<String, Long> more = new HashMap<>(this.rateLimitOverrides);
		more.put(Objects.requireNonNull(group, "group must not be null"), rateLimit);
		return new QueueGroups(this.maxInFlight, this.overrides, this.rateLimit, this.rateLimitPeriod, more);
	}

	/**
	 * @param group a group's name
	 * @return its most messages claimed per {@link #rateLimitPeriod()}, 0 for none
	 */
	public long rateLimit(String group) {
		return this.rateLimitOverrides.getOrDefault(group, this.rateLimit);
	}

	/**
	 * @param group a group's name
	 * @return its limit of messages in flight, 0 for none
	 */
	public int maxInFlight(String group) {
		return this.overrides.getOrDefault(group, this.maxInFlight);
	}

	/**
	 * Checks a group name: 1 to {@value #MAX_NAME_LENGTH} characters, none of them a control character (a name is
	 * data, stored as it is and never evaluated).
	 * @param group the name
	 * @return the name
	 * @throws IllegalArgumentException if it is not a valid group name
	 */
	public static String checkName(String group) {
		return Names.requireData("Group", group);
	}

}
