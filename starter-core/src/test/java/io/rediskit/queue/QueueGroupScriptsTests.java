package io.rediskit.queue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.rediskit.queue.QueueScripts.Admission;
import io.rediskit.queue.QueueScripts.Claimed;
import io.rediskit.queue.QueueScripts.ClaimedMessage;
import io.rediskit.queue.QueueScripts.HeldBack;
import io.rediskit.queue.QueueScripts.Keys;
import io.rediskit.queue.QueueScripts.Outgoing;
import io.rediskit.queue.QueueScripts.Settled;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.rediskit.queue.QueueScriptsTests.await;
import static io.rediskit.queue.QueueScriptsTests.outcomes;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The groups' rotation and per-group limits of the claim script, with pinned time: a flood of one group cannot hold
 * back another's few, a group at its limit of messages in flight or claimed per period is skipped without holding
 * back others, the queue's rate limit spends nothing on what the groups hold back, and a queue without groups reads
 * no group key.
 */
class QueueGroupScriptsTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final long T = 1_700_000_000_000L;

	static final Keys KEYS = Keys.of(KeyNaming.defaults(), "q");

	QueueScripts scripts;

	int requests;

	@BeforeEach
	void clean() {
		redis.flushAll();
		this.scripts = new QueueScripts(redis.scripts());
	}

	@Test
	void theGroupKeysShareTheQueuesHashTag() {
		for (byte[] key : KEYS.groups) {
			assertThat(new String(key, StandardCharsets.UTF_8)).startsWith("rk:queue:{q}:group-");
		}
	}

	@Test
	void aFloodOfOneGroupCannotHoldBackAnothersFew() {
		enqueue("big", "b", 2000);
		enqueue("small", "s", 10);
		Admission admission = Admission.NONE.withGroups(QueueGroups.roundRobin());
		List<String> order = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			for (ClaimedMessage message : claim(3, admission).messages()) {
				order.add(message.id());
			}
		}
		// Round-robin: every small message within the first 2 x 10 claims.
		List<String> first20 = order.subList(0, 20);
		assertThat(first20.stream().filter((id) -> id.startsWith("s")).count()).isEqualTo(10);
		// Each group's messages in the order they were enqueued.
		assertThat(order.stream().filter((id) -> id.startsWith("s")).toList())
			.containsExactly("s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9");
		assertThat(await(this.scripts.stats(KEYS, T)).ready()).isEqualTo(2010 - 30);
	}

	@Test
	void messagesWithoutAGroupTakeTheirTurnsAsOneMoreGroup() {
		enqueue("a", "a", 5);
		enqueue(null, "p", 5);
		enqueue("b", "b", 5);
		Claimed claimed = claim(9, Admission.NONE.withGroups(QueueGroups.roundRobin()));
		Map<Character, Integer> counts = new HashMap<>();
		for (ClaimedMessage message : claimed.messages()) {
			counts.merge(message.id().charAt(0), 1, Integer::sum);
		}
		assertThat(counts).containsEntry('a', 3).containsEntry('b', 3).containsEntry('p', 3);
	}

	@Test
	void aGroupAtItsLimitIsSkippedWithoutHoldingBackOthers() {
		enqueue("big", "b", 50);
		enqueue("small", "s", 50);
		Admission admission = Admission.NONE.withGroups(QueueGroups.roundRobin().withMaxInFlight(2)
			.withMaxInFlight("small", 5));
		Claimed claimed = claim(20, admission);
		Map<Character, Integer> counts = new HashMap<>();
		for (ClaimedMessage message : claimed.messages()) {
			counts.merge(message.id().charAt(0), 1, Integer::sum);
		}
		assertThat(counts).containsEntry('b', 2).containsEntry('s', 5);
		assertThat(claimed.heldBy()).isEqualTo(HeldBack.GROUP_LIMIT);
		assertThat(claimed.heldBack()).isEqualTo(13);
		// Nothing more while they are in flight; an ack makes room for one of its group.
		assertThat(claim(20, admission).messages()).isEmpty();
		ClaimedMessage big = claimed.messages().stream().filter((m) -> m.id().startsWith("b")).findFirst().get();
		assertThat(await(this.scripts.ack(KEYS, big.id(), big.token(), T)).outcome()).isEqualTo(Settled.DONE);
		Claimed next = claim(20, admission);
		// Due when enqueued, they went into their group in the order they were enqueued: b0, b1, b2.
		assertThat(next.messages()).extracting(ClaimedMessage::id).containsExactly("b2");
	}

	@Test
	void aQueueWithoutGroupsReadsNoGroupKey() {
		enqueue(null, "p", 3);
		Claimed claimed = claim(3, Admission.NONE);
		assertThat(claimed.messages()).hasSize(3);
		for (byte[] key : KEYS.groups) {
			assertThat(redis.server().command("EXISTS", new String(key, StandardCharsets.UTF_8))).isEqualTo(0L);
		}
		for (byte[] key : KEYS.groupRate) {
			assertThat(redis.server().command("EXISTS", new String(key, StandardCharsets.UTF_8))).isEqualTo(0L);
		}
	}

	@Test
	void aGroupedMessageReadyInItsGroupCanBeCancelled() {
		enqueue("g", "g", 2);
		assertThat(await(this.scripts.cancel(KEYS, "g0", "c1", T)).outcome()).isEqualTo(Settled.DONE);
		Claimed claimed = claim(5, Admission.NONE.withGroups(QueueGroups.roundRobin()));
		assertThat(claimed.messages()).extracting(ClaimedMessage::id).containsExactly("g1");
	}

	@Test
	void aGroupOverItsRateIsSkippedUntilTheWindowMovesWhateverIsSettled() {
		enqueue("big", "b", 10);
		enqueue("vip", "v", 10);
		enqueue(null, "p", 3);
		Admission admission = Admission.NONE.withGroups(QueueGroups.roundRobin()
			.withRateLimit(2, Duration.ofSeconds(1))
			.withRateLimit("vip", 5));
		Claimed claimed = claim(20, admission, T);
		assertThat(counts(claimed)).containsEntry('b', 2).containsEntry('v', 5).containsEntry('p', 3);
		assertThat(claimed.heldBy()).isEqualTo(HeldBack.GROUP_RATE);
		assertThat(claimed.heldBack()).isEqualTo(10);
		assertThat(claimed.retryAfterMillis()).as("the oldest entry leaves the window").isEqualTo(1000);
		// Settling frees no rate: only the window moving does.
		for (ClaimedMessage message : claimed.messages()) {
			assertThat(await(this.scripts.ack(KEYS, message.id(), message.token(), T + 10)).outcome()).isEqualTo(Settled.DONE);
		}
		Claimed later = claim(20, admission, T + 999);
		assertThat(later.messages()).isEmpty();
		assertThat(later.heldBy()).isEqualTo(HeldBack.GROUP_RATE);
		assertThat(later.retryAfterMillis()).isEqualTo(1);
		Claimed next = claim(20, admission, T + 1000);
		assertThat(counts(next)).containsEntry('b', 2).containsEntry('v', 5).hasSize(2);
		// Each group's messages in the order they were enqueued.
		assertThat(next.messages()).extracting(ClaimedMessage::id).filteredOn((id) -> id.startsWith("b"))
			.containsExactly("b2", "b3");
	}

	@Test
	void aGroupsInFlightLimitIsCheckedBeforeItsRate() {
		enqueue("g", "g", 5);
		Admission admission = Admission.NONE.withGroups(QueueGroups.roundRobin().withMaxInFlight(1)
			.withRateLimit(3, Duration.ofMinutes(1)));
		Claimed first = claim(5, admission, T);
		assertThat(first.messages()).extracting(ClaimedMessage::id).containsExactly("g0");
		assertThat(first.heldBy()).isEqualTo(HeldBack.GROUP_LIMIT);
		ClaimedMessage g0 = first.messages().get(0);
		assertThat(await(this.scripts.ack(KEYS, g0.id(), g0.token(), T)).outcome()).isEqualTo(Settled.DONE);
		ClaimedMessage g1 = claim(5, admission, T).messages().get(0);
		assertThat(await(this.scripts.ack(KEYS, g1.id(), g1.token(), T)).outcome()).isEqualTo(Settled.DONE);
		ClaimedMessage g2 = claim(5, admission, T).messages().get(0);
		assertThat(g2.id()).isEqualTo("g2");
		assertThat(await(this.scripts.ack(KEYS, g2.id(), g2.token(), T)).outcome()).isEqualTo(Settled.DONE);
		Claimed fourth = claim(5, admission, T);
		assertThat(fourth.messages()).as("three claimed this minute").isEmpty();
		assertThat(fourth.heldBy()).isEqualTo(HeldBack.GROUP_RATE);
		assertThat(fourth.retryAfterMillis()).isEqualTo(60_000);
	}

	@Test
	void theQueuesRateLimitSpendsNothingOnWhatTheGroupsHoldBack() {
		enqueue("a", "a", 5);
		Admission admission = new Admission("", 0, 5, 60_000)
			.withGroups(QueueGroups.roundRobin().withRateLimit(1, Duration.ofMinutes(1)));
		assertThat(claim(5, admission, T).messages()).extracting(ClaimedMessage::id).containsExactly("a0");
		assertThat(claim(5, admission, T + 1).messages()).isEmpty();
		for (String group : List.of("b", "c", "d", "e", "f")) {
			enqueue(group, group, 1);
		}
		Claimed others = claim(10, admission, T + 2);
		assertThat(others.messages()).extracting(ClaimedMessage::id).containsExactlyInAnyOrder("b0", "c0", "d0", "e0");
		assertThat(others.heldBy()).as("five claimed this minute, a0 among them").isEqualTo(HeldBack.RATE_LIMIT);
		assertThat(others.retryAfterMillis()).isEqualTo(60_000 - 2);
	}

	@Test
	void theGroupsRateStateLeavesWithItsWindow() {
		enqueue("a", "a", 3);
		Admission admission = Admission.NONE.withGroups(QueueGroups.roundRobin().withRateLimit(1, Duration.ofMinutes(1)));
		assertThat(claim(3, admission, T).messages()).hasSize(1);
		String log = new String(KEYS.groupRate[0], StandardCharsets.UTF_8);
		String counts = new String(KEYS.groupRate[1], StandardCharsets.UTF_8);
		assertThat(log).isEqualTo("rk:queue:{q}:group-rate");
		assertThat(redis.server().command("ZCARD", log)).isEqualTo(1L);
		assertThat(redis.server().command("HGET", counts, "a")).isEqualTo("1");
		assertThat((Long) redis.server().command("PTTL", log)).isPositive().isLessThanOrEqualTo(60_001L);
		assertThat((Long) redis.server().command("PTTL", counts)).isPositive().isLessThanOrEqualTo(60_001L);
		// A claim past the window removes the old entry and counts the new one.
		assertThat(claim(3, admission, T + 60_000).messages()).hasSize(1);
		assertThat(redis.server().command("ZCARD", log)).isEqualTo(1L);
		assertThat(redis.server().command("HGET", counts, "a")).isEqualTo("1");
	}

	@Test
	void aGroupedMessageLeavesNoEntryInTheGroupHashOnceItIsGone() {
		enqueue("g", "g", 4);
		Admission admission = Admission.NONE.withGroups(QueueGroups.roundRobin());
		List<ClaimedMessage> claimed = claim(4, admission).messages();
		assertThat(claimed).hasSize(4);
		assertThat(await(this.scripts.ack(KEYS, claimed.get(0).id(), claimed.get(0).token(), T)).outcome()).isEqualTo(Settled.DONE);
		assertThat(outcomes(await(this.scripts.ackAll(KEYS, List.<String[]>of(new String[] { claimed.get(1).id(), claimed.get(1).token() }), T))))
			.containsExactly(Settled.DONE);
		assertThat(await(this.scripts.deadLetter(KEYS, claimed.get(2).id(), claimed.get(2).token(), "poison", QueueSpec.defaults(), T)).outcome())
			.isEqualTo(Settled.DONE);
		assertThat(await(this.scripts.deleteDeadLetter(KEYS, claimed.get(2).id()))).isTrue();
		assertThat(await(this.scripts.cancel(KEYS, claimed.get(3).id(), "c1", T)).outcome()).as("marked in flight")
			.isEqualTo(Settled.CANCELLED);
		assertThat(redis.server().command("HKEYS", new String(KEYS.groups[0], StandardCharsets.UTF_8)))
			.as("only the message cancelled in flight, until it is settled").isEqualTo(List.of(claimed.get(3).id()));
	}

	@Test
	void aReleasedMessageGoesBackToTheHeadOfItsGroupUnderItsLimits() {
		enqueue("a", "a", 2);
		enqueue("b", "b", 2);
		QueueSpec spec = QueueSpec.defaults().withGroups(QueueGroups.roundRobin().withMaxInFlight(1));
		Admission admission = Admission.of(spec, null);
		Claimed first = claim(4, admission, T);
		assertThat(first.messages()).extracting(ClaimedMessage::id).containsExactly("a0", "b0");
		ClaimedMessage a0 = first.messages().get(0);
		assertThat(await(this.scripts.release(KEYS, a0.id(), a0.token(), true, T + 1)).outcome())
			.isEqualTo(Settled.DONE);
		assertThat(redis.server().command("LLEN", key(1))).as("not in the plain ready list").isEqualTo(0L);
		// b is at its limit (b0 in flight); a's turn gives a0 again, before a1, and only it.
		Claimed again = claim(4, admission, T + 2);
		assertThat(again.messages()).extracting(ClaimedMessage::id).containsExactly("a0");
		assertThat(again.heldBy()).isEqualTo(HeldBack.GROUP_LIMIT);
		assertThat(again.messages().get(0).deliveries()).as("a release is not counted").isEqualTo(1);
	}

	@Test
	void aReleasedMessageOfAGroupOverItsRateWaitsForTheWindow() {
		enqueue("a", "a", 1);
		QueueSpec spec = QueueSpec.defaults().withGroups(QueueGroups.roundRobin().withRateLimit(1, Duration.ofMinutes(1)));
		Admission admission = Admission.of(spec, null);
		ClaimedMessage a0 = claim(1, admission, T).messages().get(0);
		await(this.scripts.release(KEYS, a0.id(), a0.token(), true, T + 1));
		Claimed held = claim(1, admission, T + 2);
		assertThat(held.messages()).as("one of a's claims this minute already").isEmpty();
		assertThat(held.heldBy()).isEqualTo(HeldBack.GROUP_RATE);
		assertThat(claim(1, admission, T + 60_000).messages()).extracting(ClaimedMessage::id).containsExactly("a0");
	}

	@Test
	void aMessageTakenBackAfterItsVisibilityTimeoutGoesBackIntoItsGroup() {
		enqueue("a", "a", 2);
		enqueue(null, "p", 1);
		QueueSpec spec = QueueSpec.defaults().withMaxDeliveries(5)
			.withGroups(QueueGroups.roundRobin().withMaxInFlight(1));
		Admission admission = Admission.of(spec, null);
		Claimed first = await(this.scripts.claim(KEYS, "r" + (++this.requests), 3, 1000, admission, T));
		assertThat(first.messages()).extracting(ClaimedMessage::id).containsExactlyInAnyOrder("a0", "p0");
		assertThat(await(this.scripts.requeueExpired(KEYS, spec, T + 1000)))
			.containsExactly(2L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L);
		assertThat(redis.server().command("LRANGE", key(1), "0", "-1")).as("only the message without a group")
			.isEqualTo(List.of("p0"));
		Claimed again = claim(3, admission, T + 1001);
		assertThat(again.messages()).extracting(ClaimedMessage::id).containsExactlyInAnyOrder("a0", "p0");
		assertThat(again.heldBy()).as("a1 waits for a0").isEqualTo(HeldBack.GROUP_LIMIT);
	}

	@Test
	void redrivenDeadLettersOfAGroupGoToTheEndOfTheirGroupUnderItsLimits() {
		enqueue("a", "a", 3);
		enqueue("b", "b", 2);
		QueueSpec spec = QueueSpec.defaults().withGroups(QueueGroups.roundRobin().withMaxInFlight(1));
		Admission admission = Admission.of(spec, null);
		// a0 and a1 fail for good, b0 and b1 succeed: two dead letters of group a, a2 still ready in it.
		for (int round = 0; round < 2; round++) {
			for (ClaimedMessage m : claim(4, admission, T + round).messages()) {
				Settled outcome = m.id().startsWith("a")
						? await(this.scripts.deadLetter(KEYS, m.id(), m.token(), "bad", spec, T + round)).outcome()
						: await(this.scripts.ack(KEYS, m.id(), m.token(), T + round)).outcome();
				assertThat(outcome).isEqualTo(Settled.DONE);
			}
		}
		assertThat(redis.server().command("ZRANGE", key(3), "0", "-1")).isEqualTo(List.of("a0", "a1"));
		assertThat(await(this.scripts.redrive(KEYS, 1, true, T + 10))).isEqualTo(1L);
		assertThat(await(this.scripts.redriveOne(KEYS, "a1", true, T + 11))).isTrue();
		assertThat(redis.server().command("LLEN", key(1))).as("not in the plain ready list").isEqualTo(0L);
		// The redriven letters wait behind a2, their group's next, and for its limit.
		Claimed first = claim(4, admission, T + 12);
		assertThat(first.messages()).extracting(ClaimedMessage::id).containsExactly("a2");
		assertThat(first.heldBy()).isEqualTo(HeldBack.GROUP_LIMIT);
		ClaimedMessage a2 = first.messages().get(0);
		await(this.scripts.ack(KEYS, a2.id(), a2.token(), T + 13));
		Claimed next = claim(4, admission, T + 14);
		assertThat(next.messages()).extracting(ClaimedMessage::id).containsExactly("a0");
		assertThat(next.messages().get(0).deliveries()).as("counted afresh").isEqualTo(1);
	}

	@Test
	void withoutGroupsARedrivenDeadLetterGoesToTheEndOfReadyWhateverItsEntry() {
		enqueue("a", "a", 1);
		enqueue(null, "p", 1);
		ClaimedMessage a0 = claim(1, Admission.NONE.withGroups(QueueGroups.roundRobin())).messages().get(0);
		await(this.scripts.deadLetter(KEYS, a0.id(), a0.token(), "bad", QueueSpec.defaults(), T));
		assertThat(await(this.scripts.redriveOne(KEYS, "a0", false, T + 1))).isTrue();
		assertThat(redis.server().command("LRANGE", key(1), "0", "-1")).isEqualTo(List.of("p0", "a0"));
	}

	@Test
	void withoutGroupsAReleasedMessageGoesToTheHeadOfReadyWhateverItsEntry() {
		enqueue("a", "a", 1);
		ClaimedMessage a0 = claim(1, Admission.NONE.withGroups(QueueGroups.roundRobin())).messages().get(0);
		await(this.scripts.release(KEYS, a0.id(), a0.token(), false, T));
		assertThat(redis.server().command("LRANGE", key(1), "0", "-1")).isEqualTo(List.of("a0"));
	}

	private static String key(int index) {
		return KEYS.key(index);
	}

	private static Map<Character, Integer> counts(Claimed claimed) {
		Map<Character, Integer> counts = new HashMap<>();
		for (ClaimedMessage message : claimed.messages()) {
			counts.merge(message.id().charAt(0), 1, Integer::sum);
		}
		return counts;
	}

	private Claimed claim(int max, Admission admission, long now) {
		return await(this.scripts.claim(KEYS, "r" + (++this.requests), max, 30_000, admission, now));
	}

	private Claimed claim(int max, Admission admission) {
		return await(this.scripts.claim(KEYS, "r" + (++this.requests), max, 30_000, admission, T));
	}

	private void enqueue(String group, String prefix, int count) {
		List<Outgoing> messages = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			String id = prefix + i;
			messages.add(new Outgoing(id, id.getBytes(StandardCharsets.UTF_8), 0, 0, QueuePriority.NORMAL)
				.inGroup(group));
		}
		await(this.scripts.enqueue(KEYS, messages, T));
		while (await(this.scripts.promote(KEYS, group != null, T)).moved() > 0) {
			// Promote in batches until every due message is ready.
		}
	}

}
