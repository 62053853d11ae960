package io.rediskit.queue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

import io.rediskit.queue.QueueScripts.ClaimedMessage;
import io.rediskit.queue.QueueScripts.Keys;
import io.rediskit.queue.QueueScripts.Outgoing;
import io.rediskit.queue.QueueScripts.Settled;
import io.rediskit.queue.QueueScripts.Settlement;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The flow and batch bookkeeping of the settling scripts ({@code workflow.lua}) with pinned time: a replayed ack
 * counts once, a child failing by its visibility timeout or its last retry acts by the policy, a released parent is
 * due at its own due time, a finished batch's record goes after its retention.
 */
class QueueWorkflowScriptsTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final long T = 1_700_000_000_000L;

	static final Keys KEYS = Keys.of(KeyNaming.defaults(), "w");

	static final QueueSpec SPEC = QueueSpec.defaults().withMaxDeliveries(2).withDeadLetters(Duration.ofHours(1), 100);

	RedisServerProcess server;

	QueueScripts scripts;

	@BeforeEach
	void clean() {
		redis.flushAll();
		this.server = redis.server();
		this.scripts = new QueueScripts(redis.scripts());
	}

	@Test
	void aReplayedAckOfAChildCountsOnceAndTheParentIsDueAtItsOwnTime() {
		assertThat(await(this.scripts.enqueueFlow(KEYS, new Outgoing("p", json("p"), 0, T + 60_000),
				List.of(out("c1"), out("c2")), "F", T))).isNull();
		assertThat(this.server.command("ZSCORE", key(0), "p")).as("waiting in no state").isNull();
		List<ClaimedMessage> claimed = claim(2, T);
		ClaimedMessage c1 = claimed.get(0);
		assertThat(await(this.scripts.ack(KEYS, c1.id(), c1.token(), "1", T))).isEqualTo(new Settlement(Settled.DONE, 0));
		assertThat(await(this.scripts.ack(KEYS, c1.id(), c1.token(), "1", T)).outcome()).isEqualTo(Settled.REPLAYED);
		assertThat(this.server.command("ZSCORE", key(0), "p")).as("one child left").isNull();
		ClaimedMessage c2 = claimed.get(1);
		Settlement last = await(this.scripts.ack(KEYS, c2.id(), c2.token(), "2", T + 10));
		assertThat(last.outcome()).isEqualTo(Settled.DONE);
		assertThat(last.has(QueueFlow.ParentRelease.ALL_FINISHED)).as("the parent released by this ack").isTrue();
		assertThat(last.events()).as("and nothing else").isEqualTo(1);
		assertThat(this.server.command("ZSCORE", key(0), "p")).isEqualTo(Long.toString(T + 60_000));
		assertThat(await(this.scripts.flowChildren(KEYS, "p"))).extracting((child) -> child[0] + "=" + child[1])
			.containsExactly("c1=s1", "c2=s2");
	}

	@Test
	void aChildDeadByItsVisibilityTimeoutFailsTheParentAndOneByItsLastRetryIsIgnoredByIgnore() {
		await(this.scripts.enqueueFlow(KEYS, new Outgoing("p", json("p"), 0, 0), List.of(out("c1"), out("c2")), "F",
				T));
		claim(2, T);
		// Both in flight past their deadline with the last of their 2 deliveries: each second claim, then requeue.
		await(this.scripts.requeueExpired(KEYS, SPEC, T + 1000));
		claim(2, T + 1000);
		assertThat(await(this.scripts.requeueExpired(KEYS, SPEC, T + 2000)))
			.as("one dead by its limit, one cancelled by FAIL as it died; one parent dead-lettered by FAIL")
			.containsExactly(0L, 1L, 1L, 0L, 0L, 1L, 0L, 0L, 0L);
		List<Object> dead = deadIds();
		assertThat(dead).contains("p", "c1", "c2");
		assertThat((String) this.server.command("HGET", key(6), "p")).startsWith("child c")
			.contains("visibility timeout");
		assertThat(this.server.command("EXISTS", workflow())).isEqualTo(0L);

		redis.flushAll();
		await(this.scripts.enqueueFlow(KEYS, new Outgoing("q", json("q"), 0, 0), List.of(out("d1"), out("d2")), "I",
				T));
		List<ClaimedMessage> first = claim(2, T);
		for (ClaimedMessage message : first) {
			assertThat(await(this.scripts.retry(KEYS, message.id(), message.token(), 0, SPEC, "boom", T)).outcome())
				.isEqualTo(Settled.DONE);
		}
		List<ClaimedMessage> second = claim(2, T);
		ClaimedMessage d1 = second.get(0).id().equals("d1") ? second.get(0) : second.get(1);
		ClaimedMessage d2 = (d1 == second.get(0)) ? second.get(1) : second.get(0);
		assertThat(await(this.scripts.retry(KEYS, d1.id(), d1.token(), 0, SPEC, "boom", T)).outcome())
			.isEqualTo(Settled.DEAD_LETTERED);
		assertThat(this.server.command("ZSCORE", key(0), "q")).as("d2 still runs").isNull();
		assertThat(await(this.scripts.ack(KEYS, d2.id(), d2.token(), null, T + 5)))
			.isEqualTo(new Settlement(Settled.DONE, 1));
		assertThat(this.server.command("ZSCORE", key(0), "q")).isEqualTo(Long.toString(T + 5));
		assertThat(await(this.scripts.flowChildren(KEYS, "q"))).extracting((child) -> child[0] + "=" + child[1])
			.containsExactly("d1=fboom", "d2=s");
	}

	@Test
	void aFinishedBatchsRecordGoesAfterItsRetentionWhenAnotherFinishes() {
		await(this.scripts.enqueueBatch(KEYS, "b1", new Outgoing[3], List.of(out("m1")), T));
		await(this.scripts.enqueueBatch(KEYS, "b2", new Outgoing[3], List.of(out("m2")), T));
		assertThat(await(this.scripts.enqueueBatch(KEYS, "b2", new Outgoing[3], List.of(out("m3")), T)))
			.as("the batch exists").isEmpty();
		ClaimedMessage m1 = claim(2, T).stream().filter((m) -> m.id().equals("m1")).findFirst().orElseThrow();
		Settlement finished = await(this.scripts.ack(KEYS, "m1", m1.token(), null, T));
		assertThat(finished.has(QueueBatch.Event.COMPLETE)).isTrue();
		assertThat(finished.has(QueueBatch.Event.SUCCESS)).isTrue();
		assertThat(finished.has(QueueBatch.Event.DEATH)).isFalse();
		assertThat(await(this.scripts.batchProgress(KEYS, "b1")).finishedAt().toEpochMilli()).isEqualTo(T);
		ClaimedMessage m2 = inFlight("m2");
		long later = T + QueueScripts.FINISHED_BATCH_RETENTION.toMillis() + 1;
		await(this.scripts.ack(KEYS, "m2", m2.token(), null, later));
		assertThat(await(this.scripts.batchProgress(KEYS, "b1"))).as("past its retention").isNull();
		assertThat(await(this.scripts.batchProgress(KEYS, "b2")).succeeded()).isEqualTo(1);
	}

	private ClaimedMessage inFlight(String id) {
		String meta = (String) this.server.command("HGET", key(4), id);
		return new ClaimedMessage(id, new byte[0], 1, T, meta.substring(meta.lastIndexOf('|') + 1));
	}

	private List<ClaimedMessage> claim(int max, long now) {
		await(this.scripts.promote(KEYS, now));
		return await(this.scripts.claim(KEYS, "r" + now + "-" + System.nanoTime(), max, 500, now)).messages();
	}

	@SuppressWarnings("unchecked")
	private List<Object> deadIds() {
		return (List<Object>) this.server.command("ZRANGE", key(3), "0", "-1");
	}

	private static String key(int index) {
		return KEYS.key(index);
	}

	private static String workflow() {
		return new String(KEYS.workflow[0], StandardCharsets.UTF_8);
	}

	private static Outgoing out(String id) {
		return new Outgoing(id, json(id), 0, 0);
	}

	private static byte[] json(String value) {
		return ("{\"v\":\"" + value + "\"}").getBytes(StandardCharsets.UTF_8);
	}

	private static <V> V await(CompletionStage<V> stage) {
		return stage.toCompletableFuture().join();
	}

}
