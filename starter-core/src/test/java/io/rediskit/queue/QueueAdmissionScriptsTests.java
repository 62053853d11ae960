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
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.rediskit.queue.QueueScriptsTests.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admission rules of the claim script with pinned time: priorities' weighted turn (and the starvation bounds
 * it gives), pause of a queue or a listener, the in-flight limit and the rate limit; and the scripts that place or
 * count messages by priority.
 */
class QueueAdmissionScriptsTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final long T = 1_700_000_000_000L;

	static final Keys KEYS = Keys.of(KeyNaming.defaults(), "q");

	static final QueueSpec SPEC = QueueSpec.defaults();

	RedisServerProcess server;

	QueueScripts scripts;

	int requests;

	@BeforeEach
	void clean() {
		redis.flushAll();
		this.server = redis.server();
		this.scripts = new QueueScripts(redis.scripts());
	}

	@Test
	void theKeysOfPrioritiesAndAdmissionShareTheQueuesHashTag() {
		for (byte[] key : KEYS.levels) {
			assertThat(new String(key, StandardCharsets.UTF_8)).startsWith("rk:queue:{q}:");
		}
		for (byte[] key : new byte[][] { KEYS.paused, KEYS.rateLog, KEYS.turn }) {
			assertThat(new String(key, StandardCharsets.UTF_8)).startsWith("rk:queue:{q}:");
		}
		assertThat(KEYS.of(QueuePriority.HIGH).key(1)).isEqualTo("rk:queue:{q}:ready:high");
		assertThat(KEYS.of(QueuePriority.LOW).key(0)).isEqualTo("rk:queue:{q}:delayed:low");
		assertThat(KEYS.of(QueuePriority.NORMAL)).isSameAs(KEYS);
		assertThat(QueuePriority.TURN).hasSize(QueuePriority.TURN_LENGTH);
	}

	@Test
	void aFloodOfLowPriorityCannotStarveHigh() {
		// 2000 low first, then 100 high: without priorities the high ones would wait behind every low one.
		ready(QueuePriority.LOW, "l", 2000);
		ready(QueuePriority.HIGH, "h", 100);
		Map<QueuePriority, Integer> counts = claimInBatches(5, 70);
		// Against low alone, high takes 6 turns of every 7.
		assertThat(counts.get(QueuePriority.HIGH)).isEqualTo(60);
		assertThat(counts.get(QueuePriority.LOW)).isEqualTo(10);
		// Claims of one message each follow the same turn across calls.
		counts = claimInBatches(1, 35);
		assertThat(counts.get(QueuePriority.HIGH)).isEqualTo(30);
		assertThat(counts.get(QueuePriority.LOW)).isEqualTo(5);
	}

	@Test
	void aFloodOfHighPriorityLeavesLowItsShare() {
		ready(QueuePriority.HIGH, "h", 2000);
		ready(QueuePriority.LOW, "l", 100);
		Map<QueuePriority, Integer> counts = claimInBatches(7, 140);
		// The bound on what high does to low: at least 1 delivery in 7 while low has messages.
		assertThat(counts.get(QueuePriority.LOW)).isEqualTo(20);
		assertThat(counts.get(QueuePriority.HIGH)).isEqualTo(120);
		// With normal messages too, every turn of 10 gives 6 high, 3 normal, 1 low.
		ready(QueuePriority.NORMAL, "n", 100);
		counts = claimInBatches(10, 100);
		assertThat(counts).containsEntry(QueuePriority.HIGH, 60).containsEntry(QueuePriority.NORMAL, 30)
			.containsEntry(QueuePriority.LOW, 10);
	}

	@Test
	void anEmptyPriorityGivesItsTurnsToTheOthersAndOrderHoldsWithinAPriority() {
		ready(QueuePriority.HIGH, "h", 3);
		ready(QueuePriority.NORMAL, "n", 20);
		List<ClaimedMessage> claimed = claim(20, Admission.NONE).messages();
		assertThat(claimed).hasSize(20);
		assertThat(claimed.stream().filter((m) -> m.priority() == QueuePriority.HIGH).map(ClaimedMessage::id))
			.containsExactly("h0000", "h0001", "h0002");
		assertThat(claimed.stream().filter((m) -> m.priority() == QueuePriority.NORMAL).map(ClaimedMessage::id))
			.containsExactlyElementsOf(ids("n", 17));
	}

	@Test
	void aReplayedClaimReturnsItsMessagesWithTheirPriorities() {
		ready(QueuePriority.HIGH, "h", 2);
		ready(QueuePriority.LOW, "l", 2);
		Claimed first = await(this.scripts.claim(KEYS, "r1", 4, 30_000, Admission.NONE, T));
		Claimed replay = await(this.scripts.claim(KEYS, "r1", 4, 30_000, Admission.NONE, T + 5));
		assertThat(replay.messages()).extracting(ClaimedMessage::id, ClaimedMessage::priority)
			.containsExactlyElementsOf(first.messages().stream().map((m) -> org.assertj.core.groups.Tuple
				.tuple(m.id(), m.priority())).toList());
	}

	@Test
	void retriesAndReleasesKeepTheirPriorityAndCancelStatsAndPurgeSeeEveryPriority() {
		ready(QueuePriority.HIGH, "h", 2);
		enqueue(QueuePriority.LOW, "later", 60_000);
		List<ClaimedMessage> claimed = claim(1, Admission.NONE).messages();
		ClaimedMessage h0 = claimed.get(0);
		assertThat(h0.priority()).isEqualTo(QueuePriority.HIGH);
		assertThat(await(this.scripts.retry(KEYS.of(h0.priority()), h0.id(), h0.token(), 1000, SPEC, "r", T)).outcome())
			.isEqualTo(Settled.DONE);
		assertThat(this.server.command("ZSCORE", "rk:queue:{q}:delayed:high", "h0000")).isEqualTo(
				Long.toString(T + 1000));
		ClaimedMessage h1 = claim(1, Admission.NONE).messages().get(0);
		await(this.scripts.release(KEYS.of(h1.priority()), h1.id(), h1.token(), false, T));
		assertThat(this.server.command("LRANGE", "rk:queue:{q}:ready:high", "0", "-1")).isEqualTo(List.of("h0001"));
		assertThat(await(this.scripts.stats(KEYS, T))).isEqualTo(new QueueStats(2, 1, 0, 0, Duration.ZERO));
		assertThat(await(this.scripts.stats(KEYS, T + 1000)).ready()).isEqualTo(2);
		assertThat(await(this.scripts.cancel(KEYS, "later", "c1", T)).outcome()).isEqualTo(Settled.DONE);
		assertThat(await(this.scripts.cancel(KEYS, "h0001", "c2", T)).outcome()).isEqualTo(Settled.DONE);
		assertThat(await(this.scripts.purge(KEYS))).isEqualTo(1);
		for (String gone : new String[] { "delayed", "ready", "delayed:high", "ready:high", "delayed:low", "ready:low",
				"meta", "payloads" }) {
			assertThat(this.server.command("EXISTS", "rk:queue:{q}:" + gone)).as(gone).isEqualTo(0L);
		}
	}

	@Test
	void deliveriesTakenBackAfterTheirVisibilityTimeoutAndRedrivenDeadLettersKeepTheirPriority() {
		ready(QueuePriority.HIGH, "h", 2);
		ready(QueuePriority.NORMAL, "n", 1);
		ready(QueuePriority.LOW, "l", 2);
		assertThat(claim(5, Admission.NONE).messages()).hasSize(5);
		// Every consumer died: each delivery goes back to the head of its own priority's ready list.
		assertThat(await(this.scripts.requeueExpired(KEYS, SPEC, T + 30_000))[0]).isEqualTo(5L);
		assertThat(this.server.command("LRANGE", "rk:queue:{q}:ready:high", "0", "-1"))
			.isEqualTo(List.of("h0000", "h0001"));
		assertThat(this.server.command("LRANGE", "rk:queue:{q}:ready", "0", "-1")).isEqualTo(List.of("n0000"));
		assertThat(this.server.command("LRANGE", "rk:queue:{q}:ready:low", "0", "-1"))
			.isEqualTo(List.of("l0000", "l0001"));
		Map<String, QueuePriority> again = new HashMap<>();
		for (ClaimedMessage message : claim(5, Admission.NONE, T + 30_000).messages()) {
			again.put(message.id(), message.priority());
		}
		assertThat(again).containsEntry("h0000", QueuePriority.HIGH).containsEntry("n0000", QueuePriority.NORMAL)
			.containsEntry("l0001", QueuePriority.LOW).hasSize(5);
		// Dead-lettered at the delivery limit by the visibility timeout: the dead letters keep their priority, and a
		// redrive puts each at the end of its priority's list.
		QueueSpec twice = SPEC.withMaxDeliveries(2);
		assertThat(await(this.scripts.requeueExpired(KEYS, twice, T + 60_000))[1]).isEqualTo(5L);
		assertThat(await(this.scripts.deadLetters(KEYS, 10))).extracting(DeadLetter::id, DeadLetter::priority)
			.containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("h0000", QueuePriority.HIGH),
					org.assertj.core.groups.Tuple.tuple("h0001", QueuePriority.HIGH),
					org.assertj.core.groups.Tuple.tuple("n0000", QueuePriority.NORMAL),
					org.assertj.core.groups.Tuple.tuple("l0000", QueuePriority.LOW),
					org.assertj.core.groups.Tuple.tuple("l0001", QueuePriority.LOW));
		assertThat(await(this.scripts.redriveOne(KEYS, "l0001", false, T + 60_001))).isTrue();
		assertThat(await(this.scripts.redrive(KEYS, 10, false, T + 60_002))).isEqualTo(4L);
		assertThat(this.server.command("LRANGE", "rk:queue:{q}:ready:low", "0", "-1"))
			.isEqualTo(List.of("l0001", "l0000"));
		assertThat(this.server.command("LLEN", "rk:queue:{q}:ready:high")).isEqualTo(2L);
		assertThat(this.server.command("LRANGE", "rk:queue:{q}:ready", "0", "-1")).isEqualTo(List.of("n0000"));
		// Dead-lettered by the handler (and by a retry past the limit): the same.
		List<ClaimedMessage> highs = claim(5, Admission.NONE, T + 60_002).messages().stream()
			.filter((m) -> m.priority() == QueuePriority.HIGH).toList();
		assertThat(highs).hasSize(2);
		ClaimedMessage high = highs.get(0);
		assertThat(await(this.scripts.deadLetter(KEYS.of(high.priority()), high.id(), high.token(), "bad", SPEC,
				T + 60_003)).outcome()).isEqualTo(Settled.DONE);
		ClaimedMessage other = highs.get(1);
		assertThat(await(this.scripts.retry(KEYS.of(other.priority()), other.id(), other.token(), 1000,
				SPEC.withMaxDeliveries(1), "failed", T + 60_004)).outcome()).isEqualTo(Settled.DEAD_LETTERED);
		assertThat(await(this.scripts.deadLetters(KEYS, 10))).extracting(DeadLetter::priority)
			.containsExactly(QueuePriority.HIGH, QueuePriority.HIGH);
		assertThat(await(this.scripts.redrive(KEYS, 10, false, T + 60_005))).isEqualTo(2L);
		assertThat(this.server.command("LLEN", "rk:queue:{q}:ready:high")).isEqualTo(2L);
	}

	@Test
	void aPausedQueueOrListenerClaimsNothingUntilResumed() {
		ready(QueuePriority.NORMAL, "n", 3);
		assertThat(await(this.scripts.pause(KEYS, QueueScripts.QUEUE_PAUSE, T))).isTrue();
		assertThat(await(this.scripts.pause(KEYS, QueueScripts.QUEUE_PAUSE, T + 5))).as("paused already").isFalse();
		assertThat(await(this.scripts.paused(KEYS, QueueScripts.QUEUE_PAUSE))).isEqualTo(T);
		Claimed paused = claim(3, Admission.NONE);
		assertThat(paused.messages()).isEmpty();
		assertThat(paused.heldBy()).isEqualTo(HeldBack.PAUSED);
		assertThat(this.server.command("LLEN", KEYS.key(1))).isEqualTo(3L);
		assertThat(this.server.command("TTL", new String(KEYS.paused, StandardCharsets.UTF_8))).as("outlives restarts")
			.isEqualTo(-1L);
		assertThat(await(this.scripts.resume(KEYS, QueueScripts.QUEUE_PAUSE))).isTrue();
		assertThat(await(this.scripts.resume(KEYS, QueueScripts.QUEUE_PAUSE))).isFalse();
		// One listener paused: it claims nothing, the others go on.
		String field = Keys.listenerPause("mails.send");
		await(this.scripts.pause(KEYS, field, T));
		Admission paused1 = new Admission("mails.send", 0, 0, 1);
		assertThat(claim(3, paused1).heldBy()).isEqualTo(HeldBack.PAUSED);
		assertThat(claim(1, new Admission("mails.audit", 0, 0, 1)).messages()).hasSize(1);
		assertThat(claim(1, Admission.NONE).messages()).hasSize(1);
		await(this.scripts.resume(KEYS, field));
		assertThat(claim(3, paused1).messages()).hasSize(1);
		assertThat(await(this.scripts.paused(KEYS, field))).isEqualTo(-1L);
	}

	@Test
	void theInFlightLimitCapsClaimsAcrossConsumersWithoutCountingADelivery() {
		ready(QueuePriority.NORMAL, "n", 10);
		Admission limited = new Admission("", 4, 0, 1);
		assertThat(claim(3, limited).messages()).hasSize(3);
		Claimed second = claim(3, limited);
		assertThat(second.messages()).hasSize(1);
		assertThat(second.heldBy()).isEqualTo(HeldBack.MAX_IN_FLIGHT);
		assertThat(second.heldBack()).isEqualTo(2);
		Claimed full = claim(3, limited);
		assertThat(full.messages()).isEmpty();
		assertThat(full.heldBack()).isEqualTo(3);
		// Held back, not delivered: still ready with no delivery counted.
		assertThat(this.server.command("LINDEX", KEYS.key(1), "0")).isEqualTo("n0004");
		assertThat(this.server.command("HGET", KEYS.key(4), "n0004")).isEqualTo(T + "|0|");
		ClaimedMessage first = second.messages().get(0);
		await(this.scripts.ack(KEYS, first.id(), first.token(), T));
		assertThat(claim(3, limited).messages()).extracting(ClaimedMessage::id).containsExactly("n0004");
		assertThat(this.server.command("ZCARD", KEYS.key(2))).isEqualTo(4L);
	}

	@Test
	void theRateLimitAdmitsAtMostTheLimitInAnyWindowAndSaysWhenTheNextIsAdmitted() {
		ready(QueuePriority.NORMAL, "n", 50);
		Admission limited = new Admission("", 0, 10, 1000);
		assertThat(claim(4, limited, T).messages()).hasSize(4);
		Claimed partial = claim(8, limited, T + 300);
		assertThat(partial.messages()).hasSize(6);
		assertThat(partial.heldBy()).isEqualTo(HeldBack.RATE_LIMIT);
		assertThat(partial.heldBack()).isEqualTo(2);
		assertThat(partial.retryAfterMillis()).as("a full window says when it admits one: the first 4 leave it at"
				+ " T + 1000").isEqualTo(700);
		Claimed none = claim(8, limited, T + 600);
		assertThat(none.messages()).isEmpty();
		assertThat(none.retryAfterMillis()).as("the first 4 leave the window at T + 1000").isEqualTo(400);
		assertThat(this.server.command("HGET", KEYS.key(4), "n0010")).as("no delivery counted").isEqualTo(T + "|0|");
		assertThat(claim(8, limited, T + 1000).messages()).as("the first 4 left the window").hasSize(4);
		assertThat(claim(8, limited, T + 1299).messages()).isEmpty();
		assertThat(claim(8, limited, T + 1300).messages()).hasSize(6);
		// The window, plus the millisecond every rate-limit TTL adds (see sliding_log.lua).
		assertThat((Long) this.server.command("PTTL", new String(KEYS.rateLog, StandardCharsets.UTF_8)))
			.isBetween(1L, 1001L);
	}

	@Test
	void limitsApplyInOrderAndAPauseWinsOverAll() {
		ready(QueuePriority.NORMAL, "n", 10);
		Admission both = new Admission("", 3, 2, 1000);
		Claimed claimed = claim(5, both);
		assertThat(claimed.messages()).hasSize(2);
		assertThat(claimed.heldBy()).isEqualTo(HeldBack.RATE_LIMIT);
		assertThat(claimed.heldBack()).isEqualTo(3);
		await(this.scripts.pause(KEYS, QueueScripts.QUEUE_PAUSE, T));
		assertThat(claim(5, both).heldBy()).isEqualTo(HeldBack.PAUSED);
	}

	private Map<QueuePriority, Integer> claimInBatches(int batch, int total) {
		Map<QueuePriority, Integer> counts = new HashMap<>(Map.of(QueuePriority.HIGH, 0, QueuePriority.NORMAL, 0,
				QueuePriority.LOW, 0));
		for (int claimed = 0; claimed < total; claimed += batch) {
			for (ClaimedMessage message : claim(Math.min(batch, total - claimed), Admission.NONE).messages()) {
				counts.merge(message.priority(), 1, Integer::sum);
			}
		}
		return counts;
	}

	private Claimed claim(int max, Admission admission) {
		return claim(max, admission, T);
	}

	private Claimed claim(int max, Admission admission, long now) {
		return await(this.scripts.claim(KEYS, "r" + this.requests++, max, 30_000, admission, now));
	}

	private void ready(QueuePriority priority, String prefix, int count) {
		List<Outgoing> messages = new ArrayList<>();
		for (String id : ids(prefix, count)) {
			messages.add(new Outgoing(id, payload(id), 0, 0, priority));
		}
		await(this.scripts.enqueue(KEYS, messages, T));
		while (await(this.scripts.promote(KEYS, T)).moved() > 0) {
			// Promote in batches until every due message is ready.
		}
	}

	private void enqueue(QueuePriority priority, String id, long delay) {
		await(this.scripts.enqueue(KEYS, List.of(new Outgoing(id, payload(id), delay, 0, priority)), T));
	}

	private static List<String> ids(String prefix, int count) {
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			ids.add(String.format("%s%04d", prefix, i));
		}
		return ids;
	}

	private static byte[] payload(String id) {
		return ("{\"v\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8);
	}

}
