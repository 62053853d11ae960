package io.rediskit.queue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

import io.rediskit.queue.QueueScripts.Claimed;
import io.rediskit.queue.QueueScripts.ClaimedMessage;
import io.rediskit.queue.QueueScripts.Keys;
import io.rediskit.queue.QueueScripts.Outgoing;
import io.rediskit.queue.QueueScripts.Settled;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** Every queue script run through {@link QueueScripts} with pinned time, its reply and the stored state. */
class QueueScriptsTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final long T = 1_700_000_000_000L;

	static final Keys KEYS = Keys.of(KeyNaming.defaults(), "q");

	static final QueueSpec SPEC = QueueSpec.defaults().withMaxDeliveries(3).withDeadLetters(Duration.ofHours(1), 3);

	RedisServerProcess server;

	QueueScripts scripts;

	@BeforeEach
	void clean() {
		redis.flushAll();
		this.server = redis.server();
		this.scripts = new QueueScripts(redis.scripts());
	}

	@Test
	void keysShareOneHashTag() {
		for (int i = 0; i < Keys.COUNT; i++) {
			assertThat(KEYS.key(i)).startsWith("rk:queue:{q}:");
		}
		assertThat(new String(KEYS.claimRecord("r1"), StandardCharsets.UTF_8)).isEqualTo("rk:queue:{q}:claim:r1");
		assertThat(KEYS.channel).isEqualTo("rk:queue:{q}:wake");
	}

	@Test
	void enqueueStoresDelayedMessagesAndSkipsHeldIds() {
		QueueScripts.Enqueued first = await(this.scripts.enqueue(KEYS,
				List.of(out("a", 1000, 0), out("b", 0, T + 5000), out("c", 2000, T - 10)), T));
		assertThat(first.serverMillis()).isEqualTo(T);
		assertThat(first.added()).containsExactly(true, true, true);
		assertThat(this.server.command("ZSCORE", key(0), "a")).isEqualTo(Long.toString(T + 1000));
		assertThat(this.server.command("ZSCORE", key(0), "b")).isEqualTo(Long.toString(T + 5000));
		assertThat(this.server.command("ZSCORE", key(0), "c")).isEqualTo(Long.toString(T + 2000));
		assertThat(this.server.command("HGET", key(4), "a")).isEqualTo((T + 1000) + "|0|");
		assertThat(this.server.command("HGET", key(5), "a")).isEqualTo("{\"v\":\"a\"}");
		QueueScripts.Enqueued again = await(this.scripts.enqueue(KEYS, List.of(out("a", 0, 0), out("d", 0, 0)), T));
		assertThat(again.added()).containsExactly(false, true);
		assertThat(this.server.command("ZSCORE", key(0), "a")).as("unchanged").isEqualTo(Long.toString(T + 1000));
	}

	@Test
	void promoteMovesDueMessagesInDueOrderInBoundedBatches() {
		List<Outgoing> many = new ArrayList<>();
		for (int i = 0; i < QueueScripts.MOVE_BATCH + 10; i++) {
			many.add(out(String.format("m%04d", i), 0, T - 1000 + (i % 7)));
		}
		many.add(out("later", 62_000, 0));
		await(this.scripts.enqueue(KEYS, many, T - 2000));
		QueueScripts.Promoted first = await(this.scripts.promote(KEYS, T));
		assertThat(first.moved()).isEqualTo(QueueScripts.MOVE_BATCH);
		assertThat(first.nextDueMillis()).isLessThanOrEqualTo(T);
		assertThat(first.ready()).isEqualTo(QueueScripts.MOVE_BATCH);
		QueueScripts.Promoted second = await(this.scripts.promote(KEYS, T));
		assertThat(second.moved()).isEqualTo(10);
		assertThat(second.nextDueMillis()).isEqualTo(T + 60_000);
		assertThat(second.serverMillis()).isEqualTo(T);
		@SuppressWarnings("unchecked")
		List<Object> ready = (List<Object>) this.server.command("LRANGE", key(1), "0", "-1");
		assertThat(ready).hasSize(QueueScripts.MOVE_BATCH + 10);
		// Due order, equal due times in id order.
		List<String> expected = many.subList(0, many.size() - 1).stream()
			.sorted((x, y) -> (x.dueAtMillis() != y.dueAtMillis()) ? Long.compare(x.dueAtMillis(), y.dueAtMillis())
					: x.id().compareTo(y.id()))
			.map(Outgoing::id).toList();
		assertThat(ready).containsExactlyElementsOf(expected);
		assertThat(await(this.scripts.promote(KEYS, T)).moved()).isZero();
	}

	@Test
	void promoteOnAnEmptyQueueSaysNothingIsDue() {
		QueueScripts.Promoted promoted = await(this.scripts.promote(KEYS, T));
		assertThat(promoted.moved()).isZero();
		assertThat(promoted.nextDueMillis()).isEqualTo(-1);
		assertThat(this.server.dbSize()).isZero();
	}

	@Test
	void claimMovesReadyMessagesInFlightWithDeadlineAndFreshTokens() {
		readyMessages("a", "b", "c");
		Claimed claimed = await(this.scripts.claim(KEYS, "r1", 2, 30_000, T + 100));
		assertThat(claimed.serverMillis()).isEqualTo(T + 100);
		assertThat(claimed.messages()).extracting(ClaimedMessage::id).containsExactly("a", "b");
		ClaimedMessage a = claimed.messages().get(0);
		assertThat(a.token()).isEqualTo("r1:1");
		assertThat(a.deliveries()).isEqualTo(1);
		assertThat(a.dueMillis()).isEqualTo(T);
		assertThat(new String(a.payload(), StandardCharsets.UTF_8)).isEqualTo("{\"v\":\"a\"}");
		assertThat(this.server.command("ZSCORE", key(2), "a")).isEqualTo(Long.toString(T + 30_100));
		assertThat(this.server.command("HGET", key(4), "b")).isEqualTo(T + "|1|r1:2");
		assertThat(this.server.command("LRANGE", key(1), "0", "-1")).isEqualTo(List.of("c"));
		assertThat((Long) this.server.command("PTTL", "rk:queue:{q}:claim:r1")).isBetween(1L, 30_000L);
	}

	@Test
	void replayedClaimReturnsTheSameMessagesAndClaimsNothingMore() {
		readyMessages("a", "b", "c");
		Claimed first = await(this.scripts.claim(KEYS, "r1", 2, 30_000, T));
		Claimed replay = await(this.scripts.claim(KEYS, "r1", 2, 30_000, T + 5));
		assertThat(replay.messages()).extracting(ClaimedMessage::token)
			.containsExactlyElementsOf(first.messages().stream().map(ClaimedMessage::token).toList());
		assertThat(this.server.command("LLEN", key(1))).isEqualTo(1L);
		assertThat(this.server.command("HGET", key(4), "a")).as("counted once").isEqualTo(T + "|1|r1:1");
		// A message of the claim acknowledged since is not returned by a replay.
		assertThat(await(this.scripts.ack(KEYS, "a", "r1:1", T)).outcome()).isEqualTo(Settled.DONE);
		assertThat(await(this.scripts.claim(KEYS, "r1", 2, 30_000, T)).messages()).extracting(ClaimedMessage::id)
			.containsExactly("b");
	}

	@Test
	void claimOfAnEmptyQueueReturnsNothingAndStoresNothing() {
		assertThat(await(this.scripts.claim(KEYS, "r1", 5, 30_000, T)).messages()).isEmpty();
		assertThat(this.server.dbSize()).isZero();
	}

	@Test
	void claimSkipsIdsWhoseMessageIsGone() {
		readyMessages("a", "b");
		this.server.command("HDEL", key(4), "a");
		assertThat(await(this.scripts.claim(KEYS, "r1", 5, 30_000, T)).messages()).extracting(ClaimedMessage::id)
			.containsExactly("b");
	}

	@Test
	void ackRemovesEverythingButTheSettledToken() {
		readyMessages("a");
		ClaimedMessage a = claimOne("r1");
		assertThat(await(this.scripts.ack(KEYS, "a", a.token(), T)).outcome()).isEqualTo(Settled.DONE);
		assertThat(this.server.command("KEYS", "rk:queue:{q}:*")).asInstanceOf(
				org.assertj.core.api.InstanceOfAssertFactories.LIST)
			.containsExactlyInAnyOrder(key(7), "rk:queue:{q}:claim:r1");
		assertThat((Long) this.server.command("PTTL", key(7))).isBetween(1L,
				QueueScripts.SETTLED_RETENTION.toMillis());
		assertThat(await(this.scripts.ack(KEYS, "a", a.token(), T)).outcome()).as("replay").isEqualTo(Settled.REPLAYED);
	}

	@Test
	void ackManyAcknowledgesEachDeliveryByItsOwnTokenAndRecognisesReplays() {
		readyMessages("a", "b", "c");
		List<ClaimedMessage> claimed = await(this.scripts.claim(KEYS, "r1", 3, 30_000, T)).messages();
		List<String[]> pairs = List.of(new String[] { "a", claimed.get(0).token() }, new String[] { "b", "r0:9" },
				new String[] { "c", claimed.get(2).token() });
		assertThat(outcomes(await(this.scripts.ackAll(KEYS, pairs, T)))).containsExactly(Settled.DONE, Settled.STALE,
				Settled.DONE);
		assertThat(this.server.command("HEXISTS", key(4), "a")).isEqualTo(0L);
		assertThat(this.server.command("HEXISTS", key(5), "c")).isEqualTo(0L);
		assertThat(this.server.command("ZRANGE", key(2), "0", "-1")).as("b stays in flight")
			.isEqualTo(List.of("b"));
		assertThat((Long) this.server.command("PTTL", key(7))).isBetween(1L,
				QueueScripts.SETTLED_RETENTION.toMillis());
		assertThat(outcomes(await(this.scripts.ackAll(KEYS, pairs, T + 5)))).as("replay").containsExactly(Settled.REPLAYED,
				Settled.STALE, Settled.REPLAYED);
	}

	@Test
	void ackManyCountsADeliveryOnceWhenOneCallNamesItTwiceAndDeadLettersACancelledOne() {
		readyMessages("a", "b", "c");
		List<ClaimedMessage> claimed = await(this.scripts.claim(KEYS, "r1", 3, 30_000, T)).messages();
		assertThat(await(this.scripts.cancel(KEYS, "c", "c1", T)).outcome()).isEqualTo(Settled.CANCELLED);
		String a = claimed.get(0).token();
		List<String[]> pairs = List.of(new String[] { "a", a }, new String[] { "a", a },
				new String[] { "a", claimed.get(1).token() }, new String[] { "b", claimed.get(1).token() },
				new String[] { "c", claimed.get(2).token() });
		assertThat(outcomes(await(this.scripts.ackAll(KEYS, pairs, T)))).containsExactly(Settled.DONE, Settled.REPLAYED,
				Settled.STALE, Settled.DONE, Settled.CANCELLED);
		assertThat(this.server.command("ZCARD", key(2))).as("nothing left in flight").isEqualTo(0L);
		assertThat(this.server.command("ZCARD", key(7))).as("three tokens settled, and the cancel's request")
			.isEqualTo(4L);
		assertThat(this.server.command("ZRANGE", key(3), "0", "-1")).as("dead").isEqualTo(List.of("c"));
		assertThat(this.server.command("HEXISTS", key(5), "a")).isEqualTo(0L);
		assertThat(this.server.command("HEXISTS", key(5), "c")).as("a dead letter keeps its payload").isEqualTo(1L);
	}

	@Test
	void settledTokensOlderThanTheRetentionAreTrimmed() {
		readyMessages("a", "b");
		ClaimedMessage a = claimOne("r1");
		ClaimedMessage b = claimOne("r2");
		await(this.scripts.ack(KEYS, "a", a.token(), T));
		await(this.scripts.ack(KEYS, "b", b.token(), T + QueueScripts.SETTLED_RETENTION.toMillis() + 1));
		assertThat(this.server.command("ZCARD", key(7))).isEqualTo(1L);
	}

	@Test
	void settledKeepsTheLatestTokensUpToItsBoundWhateverTheThroughput() {
		// A full record of earlier settles, all within the retention, the earliest first.
		this.server.command("EVAL", "for i = 1, tonumber(ARGV[1]) do redis.call('ZADD', KEYS[1], ARGV[2] + i, 'old:' .. i)"
				+ " end", "1", key(7), Integer.toString(QueueScripts.SETTLED_MOST), Long.toString(T - 60_000));
		readyMessages("a", "b");
		List<ClaimedMessage> claimed = await(this.scripts.claim(KEYS, "r1", 2, 30_000, T)).messages();
		List<String[]> pairs = List.of(new String[] { "a", claimed.get(0).token() },
				new String[] { "b", claimed.get(1).token() });
		assertThat(outcomes(await(this.scripts.ackAll(KEYS, pairs, T)))).containsExactly(Settled.DONE, Settled.DONE);
		assertThat(this.server.command("ZCARD", key(7))).as("at the bound").isEqualTo((long) QueueScripts.SETTLED_MOST);
		assertThat(this.server.command("ZSCORE", key(7), "old:1")).as("the oldest went first").isNull();
		assertThat(this.server.command("ZSCORE", key(7), "old:2")).isNull();
		assertThat(this.server.command("ZSCORE", key(7), "old:3")).isNotNull();
		assertThat(outcomes(await(this.scripts.ackAll(KEYS, pairs, T + 1)))).as("the latest are recognised")
			.containsExactly(Settled.REPLAYED, Settled.REPLAYED);
		assertThat((Long) this.server.command("MEMORY", "USAGE", key(7), "SAMPLES", "0")).as("bytes at the bound")
			.isLessThan(16L * 1024 * 1024);
	}

	@Test
	void aSettleWhoseTokenNoLongerHoldsTheMessageIsAReplayOnlyIfThatTokenSettledIt() {
		readyMessages("a", "b", "c");
		List<ClaimedMessage> claimed = await(this.scripts.claim(KEYS, "r1", 3, 30_000, T)).messages();
		assertThat(await(this.scripts.release(KEYS, "a", claimed.get(0).token(), false, T)).outcome())
			.isEqualTo(Settled.DONE);
		assertThat(await(this.scripts.deadLetter(KEYS, "b", claimed.get(1).token(), "bad", SPEC, T)).outcome())
			.isEqualTo(Settled.DONE);
		assertThat(await(this.scripts.release(KEYS, "a", claimed.get(0).token(), false, T)).outcome())
			.isEqualTo(Settled.REPLAYED);
		assertThat(await(this.scripts.deadLetter(KEYS, "b", claimed.get(1).token(), "bad", SPEC, T)).outcome())
			.isEqualTo(Settled.REPLAYED);
		// The released message is claimed again: the first token no longer holds it, and settled nothing else.
		ClaimedMessage again = claimOne("r2");
		assertThat(again.id()).isEqualTo("a");
		assertThat(await(this.scripts.ack(KEYS, "a", claimed.get(2).token(), T)).outcome()).as("another delivery's token")
			.isEqualTo(Settled.STALE);
		assertThat(await(this.scripts.retry(KEYS, "c", "r0:1", 0, SPEC, "boom", T)).outcome()).isEqualTo(Settled.STALE);
		assertThat(await(this.scripts.ack(KEYS, "a", again.token(), T)).outcome()).isEqualTo(Settled.DONE);
		assertThat(await(this.scripts.ack(KEYS, "c", claimed.get(2).token(), T)).outcome()).isEqualTo(Settled.DONE);
	}

	@Test
	void ackWithAStaleTokenIsRefusedAndChangesNothing() {
		readyMessages("a");
		claimOne("r1");
		assertThat(await(this.scripts.ack(KEYS, "a", "r0:1", T)).outcome()).isEqualTo(Settled.STALE);
		assertThat(await(this.scripts.ack(KEYS, "missing", "r1:1", T)).outcome()).isEqualTo(Settled.STALE);
		assertThat(this.server.command("ZSCORE", key(2), "a")).isNotNull();
	}

	@Test
	void retryDelaysTheMessageUntilTheDeliveryLimitThenDeadLettersItWithTheReason() {
		readyMessages("a");
		ClaimedMessage first = claimOne("r1");
		assertThat(await(this.scripts.retry(KEYS, "a", first.token(), 1000, SPEC, "boom", T)).outcome())
			.isEqualTo(Settled.DONE);
		assertThat(this.server.command("ZSCORE", key(0), "a")).isEqualTo(Long.toString(T + 1000));
		assertThat(this.server.command("ZCARD", key(2))).isEqualTo(0L);
		assertThat(this.server.command("HGET", key(4), "a")).isEqualTo((T + 1000) + "|1|");
		assertThat(await(this.scripts.retry(KEYS, "a", first.token(), 1000, SPEC, "boom", T)).outcome())
			.isEqualTo(Settled.REPLAYED);
		await(this.scripts.promote(KEYS, T + 1000));
		ClaimedMessage second = claimOne("r2");
		assertThat(second.deliveries()).isEqualTo(2);
		await(this.scripts.retry(KEYS, "a", second.token(), 0, SPEC, "boom", T + 1000));
		await(this.scripts.promote(KEYS, T + 1000));
		ClaimedMessage third = claimOne("r3");
		assertThat(third.deliveries()).isEqualTo(3);
		assertThat(await(this.scripts.retry(KEYS, "a", third.token(), 0, SPEC, "IllegalStateException: boom",
				T + 2000)).outcome()).isEqualTo(Settled.DEAD_LETTERED);
		assertThat(this.server.command("ZSCORE", key(3), "a")).isEqualTo(Long.toString(T + 2000));
		assertThat(this.server.command("HGET", key(6), "a")).isEqualTo("IllegalStateException: boom");
		assertThat(this.server.command("ZCARD", key(0))).isEqualTo(0L);
		List<DeadLetter> letters = await(this.scripts.deadLetters(KEYS, 10));
		assertThat(letters).containsExactly(new DeadLetter("a", "{\"v\":\"a\"}", "IllegalStateException: boom",
				java.time.Instant.ofEpochMilli(T + 2000), 3));
	}

	@Test
	void retryPublishesWhenItMakesTheEarliestDueTime() {
		readyMessages("a");
		ClaimedMessage a = claimOne("r1");
		// No subscriber: PUBLISH reaches none, and the script still succeeds; the due time is what counts.
		assertThat(await(this.scripts.retry(KEYS, "a", a.token(), 0, SPEC, "x", T)).outcome()).isEqualTo(Settled.DONE);
		assertThat(this.server.command("ZSCORE", key(0), "a")).isEqualTo(Long.toString(T));
	}

	@Test
	void deadLetterIsBoundedBySizeAndAge() {
		readyMessages("a", "b", "c", "d", "e");
		for (int i = 0; i < 4; i++) {
			ClaimedMessage m = claimOne("r" + i);
			assertThat(await(this.scripts.deadLetter(KEYS, m.id(), m.token(), "bad " + i, SPEC, T + i)).outcome())
				.isEqualTo(Settled.DONE);
		}
		// At most 3 kept: the oldest went with all its data.
		assertThat(this.server.command("ZRANGE", key(3), "0", "-1")).isEqualTo(List.of("b", "c", "d"));
		assertThat(this.server.command("HGET", key(5), "a")).isNull();
		assertThat(this.server.command("HGET", key(4), "a")).isNull();
		assertThat(this.server.command("HGET", key(6), "a")).isNull();
		ClaimedMessage e = claimOne("r9");
		long later = T + SPEC.deadLetterRetention().toMillis() + 10;
		await(this.scripts.deadLetter(KEYS, e.id(), e.token(), "late", SPEC, later));
		assertThat(this.server.command("ZRANGE", key(3), "0", "-1")).as("older than the retention").isEqualTo(List.of("e"));
	}

	@Test
	void extendMovesTheDeadlineOfCurrentTokensOnly() {
		readyMessages("a", "b");
		Claimed claimed = await(this.scripts.claim(KEYS, "r1", 2, 1000, T));
		boolean[] extended = await(this.scripts.extend(KEYS,
				List.of(new String[] { "a", "r1:1" }, new String[] { "b", "stale" }, new String[] { "x", "r1:9" }),
				60_000, T + 500));
		assertThat(extended).containsExactly(true, false, false);
		assertThat(this.server.command("ZSCORE", key(2), "a")).isEqualTo(Long.toString(T + 60_500));
		assertThat(this.server.command("ZSCORE", key(2), "b")).isEqualTo(Long.toString(T + 1000));
		assertThat(claimed.messages()).hasSize(2);
		// Never revives a delivery that was taken back.
		await(this.scripts.requeueExpired(KEYS, SPEC, T + 1000));
		assertThat(await(this.scripts.extend(KEYS, List.<String[]>of(new String[] { "b", "r1:2" }), 60_000, T + 1000)))
			.containsExactly(false);
		assertThat(this.server.command("ZSCORE", key(2), "b")).isNull();
	}

	@Test
	void releaseGivesTheMessageBackAtOnceUncounted() {
		readyMessages("a", "b");
		ClaimedMessage a = claimOne("r1");
		assertThat(await(this.scripts.release(KEYS, "a", a.token(), false, T)).outcome()).isEqualTo(Settled.DONE);
		assertThat(this.server.command("LRANGE", key(1), "0", "-1")).isEqualTo(List.of("a", "b"));
		assertThat(this.server.command("HGET", key(4), "a")).isEqualTo(T + "|0|");
		assertThat(await(this.scripts.release(KEYS, "a", a.token(), false, T)).outcome()).isEqualTo(Settled.REPLAYED);
		assertThat(this.server.command("LLEN", key(1))).isEqualTo(2L);
	}

	@Test
	void requeueTakesBackExpiredDeliveriesOldestFirstAndDeadLettersThoseAtTheLimit() {
		readyMessages("a", "b", "c");
		await(this.scripts.claim(KEYS, "r1", 1, 1000, T));
		await(this.scripts.claim(KEYS, "r2", 1, 2000, T));
		await(this.scripts.claim(KEYS, "r3", 1, 9000, T));
		this.server.command("HSET", key(4), "b", T + "|3|r2:1");
		assertThat(await(this.scripts.requeueExpired(KEYS, SPEC, T + 999))).containsExactly(0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L);
		assertThat(await(this.scripts.requeueExpired(KEYS, SPEC, T + 2000))).containsExactly(1L, 1L, 0L, 0L, 0L, 0L, 0L, 0L, 0L);
		assertThat(this.server.command("LRANGE", key(1), "0", "-1")).isEqualTo(List.of("a"));
		assertThat(this.server.command("HGET", key(4), "a")).isEqualTo(T + "|1|");
		assertThat(this.server.command("HGET", key(6), "b")).isEqualTo("visibility timeout expired on delivery 3 of 3");
		assertThat(this.server.command("ZRANGE", key(2), "0", "-1")).isEqualTo(List.of("c"));
		// The stale consumer's ack is refused; the next delivery counts 2.
		assertThat(await(this.scripts.ack(KEYS, "a", "r1:1", T + 2000)).outcome()).isEqualTo(Settled.STALE);
		assertThat(claimOne("r4").deliveries()).isEqualTo(2);
	}

	@Test
	void cancelRemovesDelayedOrReadyMessagesAndMarksOnesInFlight() {
		await(this.scripts.enqueue(KEYS, List.of(out("later", 60_000, 0), out("now", 0, 0), out("busy", 0, 0)), T));
		await(this.scripts.promote(KEYS, T));
		// "busy" is claimed first? No: ready is in id order for equal due times: busy, now.
		ClaimedMessage busy = claimOne("r1");
		assertThat(busy.id()).isEqualTo("busy");
		assertThat(await(this.scripts.cancel(KEYS, "later", "c1", T)).outcome()).isEqualTo(Settled.DONE);
		assertThat(await(this.scripts.cancel(KEYS, "later", "c1", T)).outcome()).as("replay").isEqualTo(Settled.REPLAYED);
		assertThat(await(this.scripts.cancel(KEYS, "later", "c2", T)).outcome()).isEqualTo(Settled.STALE);
		assertThat(await(this.scripts.cancel(KEYS, "now", "c3", T)).outcome()).isEqualTo(Settled.DONE);
		assertThat(await(this.scripts.cancel(KEYS, "busy", "c4", T)).outcome()).as("in flight").isEqualTo(Settled.CANCELLED);
		assertThat(this.server.command("HKEYS", key(5))).isEqualTo(List.of("busy"));
		assertThat(this.server.command("HGET", key(6), "busy")).isEqualTo("cancelled");
		assertThat(this.server.command("ZRANGE", key(2), "0", "-1")).as("still in flight").isEqualTo(List.of("busy"));
		assertThat(this.server.command("EXISTS", key(0), key(1))).isEqualTo(0L);
		assertThat(await(this.scripts.cancel(KEYS, "unknown", "c5", T)).outcome()).isEqualTo(Settled.STALE);
	}

	/**
	 * A message cancelled in flight ends in the dead letters as cancelled whatever settles it next: an ack, an ack
	 * among others, a retry, a dead-letter with another reason, a release by a stopping container, or the
	 * visibility timeout; none of them acks it or makes it ready again.
	 */
	@Test
	void aMessageCancelledInFlightIsDeadLetteredAsCancelledByWhateverSettlesIt() {
		List<String> ids = List.of("ack", "many", "retry", "dead", "release", "timeout", "kept");
		List<Outgoing> messages = new ArrayList<>();
		ids.forEach((id) -> messages.add(out(id, 0, T - 100 + messages.size())));
		await(this.scripts.enqueue(KEYS, messages, T - 200));
		await(this.scripts.promote(KEYS, T));
		List<ClaimedMessage> claimed = await(this.scripts.claim(KEYS, "r1", ids.size(), 1000, T)).messages();
		assertThat(claimed).extracting(ClaimedMessage::id).containsExactlyElementsOf(ids);
		for (int i = 0; i < ids.size() - 1; i++) {
			assertThat(await(this.scripts.cancel(KEYS, ids.get(i), "c" + i, T)).outcome()).isEqualTo(Settled.CANCELLED);
		}
		assertThat(await(this.scripts.ack(KEYS, "ack", claimed.get(0).token(), T + 1)).outcome()).isEqualTo(Settled.CANCELLED);
		assertThat(outcomes(await(this.scripts.ackAll(KEYS, List.of(new String[] { "many", claimed.get(1).token() },
				new String[] { "kept", claimed.get(6).token() }), T + 1))))
			.containsExactly(Settled.CANCELLED, Settled.DONE);
		QueueSpec spec = SPEC.withDeadLetters(Duration.ofHours(1), 100);
		assertThat(await(this.scripts.retry(KEYS, "retry", claimed.get(2).token(), 10, spec, "boom", T + 1)).outcome())
			.isEqualTo(Settled.CANCELLED);
		assertThat(await(this.scripts.deadLetter(KEYS, "dead", claimed.get(3).token(), "other", spec, T + 1)).outcome())
			.isEqualTo(Settled.CANCELLED);
		assertThat(await(this.scripts.release(KEYS, "release", claimed.get(4).token(), false, T + 1)).outcome())
			.isEqualTo(Settled.CANCELLED);
		assertThat(await(this.scripts.requeueExpired(KEYS, spec, T + 2000))).containsExactly(0L, 0L, 1L, 0L, 0L, 0L, 0L, 0L, 0L);
		assertThat(await(this.scripts.ack(KEYS, "ack", claimed.get(0).token(), T + 1)).outcome()).as("replay")
			.isEqualTo(Settled.REPLAYED);
		List<DeadLetter> dead = await(this.scripts.deadLetters(KEYS, 10));
		assertThat(dead).extracting(DeadLetter::id)
			.containsExactlyInAnyOrder("ack", "many", "retry", "dead", "release", "timeout");
		assertThat(dead).extracting(DeadLetter::reason).containsOnly(DeadLetter.CANCELLED);
		assertThat(dead).extracting(DeadLetter::deliveries).containsOnly(1);
		assertThat(this.server.command("EXISTS", key(1), key(2))).as("nothing ready or in flight").isEqualTo(0L);
		assertThat(this.server.command("HEXISTS", key(4), "kept")).as("the other one acked").isEqualTo(0L);
	}

	@Test
	void statsCountEveryStateAndTheOldestDueAge() {
		await(this.scripts.enqueue(KEYS, List.of(out("a", 0, T - 5000), out("b", 0, T - 1000), out("c", 10_000, 0),
				out("d", 70_000, 0), out("e", 0, T - 3000)), T - 10_000));
		await(this.scripts.promote(KEYS, T - 2000));
		// Ready: a, e (promoted at T-2000); due but not promoted: b, c; delayed: d.
		ClaimedMessage a = claimOne("r1");
		ClaimedMessage e = claimOne("r2");
		await(this.scripts.deadLetter(KEYS, e.id(), e.token(), "x", SPEC, T));
		QueueStats stats = await(this.scripts.stats(KEYS, T));
		assertThat(stats).isEqualTo(new QueueStats(1, 2, 1, 1, Duration.ofMillis(1000)));
		assertThat(a.id()).isEqualTo("a");
		assertThat(stats.total()).isEqualTo(5);
		assertThat(await(this.scripts.stats(KEYS, T - 10_000)).oldestDueAge()).isEqualTo(Duration.ZERO);
	}

	@Test
	void redriveMovesDeadLettersBackWithCountsReset() {
		readyMessages("a", "b");
		ClaimedMessage a = claimOne("r1");
		ClaimedMessage b = claimOne("r2");
		await(this.scripts.deadLetter(KEYS, "a", a.token(), "x", SPEC, T));
		await(this.scripts.deadLetter(KEYS, "b", b.token(), "y", SPEC, T + 1));
		assertThat(await(this.scripts.redrive(KEYS, 1, false, T + 10))).isEqualTo(1L);
		assertThat(this.server.command("LRANGE", key(1), "0", "-1")).isEqualTo(List.of("a"));
		assertThat(this.server.command("HGET", key(4), "a")).isEqualTo((T + 10) + "|0|");
		assertThat(this.server.command("HGET", key(6), "a")).isNull();
		assertThat(this.server.command("ZRANGE", key(3), "0", "-1")).isEqualTo(List.of("b"));
	}

	@Test
	void purgeRemovesEveryMessage() {
		await(this.scripts.enqueue(KEYS, List.of(out("a", 0, 0), out("b", 60_000, 0), out("c", 0, 0)), T));
		await(this.scripts.promote(KEYS, T));
		claimOne("r1");
		assertThat(await(this.scripts.purge(KEYS))).isEqualTo(3L);
		assertThat(this.server.command("KEYS", "rk:queue:{q}:*")).isEqualTo(List.of("rk:queue:{q}:claim:r1"));
	}

	@Test
	void everyMessageIsInExactlyOneStateThroughAMixedRun() {
		List<Outgoing> messages = new ArrayList<>();
		for (int i = 0; i < 60; i++) {
			messages.add(out("m" + i, (i % 4) * 1000L, 0));
		}
		await(this.scripts.enqueue(KEYS, messages, T));
		long now = T;
		int round = 0;
		while (now <= T + 10_000) {
			await(this.scripts.promote(KEYS, now));
			await(this.scripts.requeueExpired(KEYS, SPEC, now));
			for (ClaimedMessage m : await(this.scripts.claim(KEYS, "r" + round++, 7, 1500, now)).messages()) {
				switch (Math.floorMod(m.id().hashCode() + m.deliveries(), 4)) {
					case 0 -> await(this.scripts.ack(KEYS, m.id(), m.token(), now)).outcome();
					case 1 -> await(this.scripts.retry(KEYS, m.id(), m.token(), 500, SPEC, "r", now)).outcome();
					case 2 -> {
						// Left to expire.
					}
					default -> await(this.scripts.release(KEYS, m.id(), m.token(), false, now)).outcome();
				}
			}
			assertExactlyOneState();
			now += 250;
		}
	}

	@SuppressWarnings("unchecked")
	private void assertExactlyOneState() {
		List<Object> all = new ArrayList<>();
		all.addAll((List<Object>) this.server.command("ZRANGE", key(0), "0", "-1"));
		all.addAll((List<Object>) this.server.command("LRANGE", key(1), "0", "-1"));
		all.addAll((List<Object>) this.server.command("ZRANGE", key(2), "0", "-1"));
		all.addAll((List<Object>) this.server.command("ZRANGE", key(3), "0", "-1"));
		List<Object> meta = (List<Object>) this.server.command("HKEYS", key(4));
		assertThat(all).as("each stored message in exactly one state").doesNotHaveDuplicates()
			.containsExactlyInAnyOrderElementsOf(meta);
		assertThat((List<Object>) this.server.command("HKEYS", key(5))).containsExactlyInAnyOrderElementsOf(meta);
	}

	private void readyMessages(String... ids) {
		List<Outgoing> messages = new ArrayList<>();
		for (String id : ids) {
			messages.add(out(id, 0, 0));
		}
		await(this.scripts.enqueue(KEYS, messages, T));
		// Enqueue order is kept by making the due times equal and the ids sorted; the tests pass sorted ids.
		await(this.scripts.promote(KEYS, T));
	}

	private ClaimedMessage claimOne(String request) {
		List<ClaimedMessage> messages = await(this.scripts.claim(KEYS, request, 1, 30_000, T)).messages();
		assertThat(messages).hasSize(1);
		return messages.get(0);
	}

	private static Outgoing out(String id, long delay, long dueAt) {
		return new Outgoing(id, ("{\"v\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8), delay, dueAt);
	}

	private static String key(int index) {
		return KEYS.key(index);
	}

	static <V> V await(CompletionStage<V> stage) {
		return stage.toCompletableFuture().join();
	}

	/** @return what each settling did to its message */
	static Settled[] outcomes(QueueScripts.Settlement[] settlements) {
		Settled[] outcomes = new Settled[settlements.length];
		for (int i = 0; i < outcomes.length; i++) {
			outcomes[i] = settlements[i].outcome();
		}
		return outcomes;
	}

}
