package io.rediskit.queue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletionStage;

import io.rediskit.queue.QueueScripts.Keys;
import io.rediskit.queue.RecurringScripts.Scheduled;
import io.rediskit.queue.RecurringScripts.Slot;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.Stages;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code recurring.lua} through {@link RecurringScripts} with pinned time: its reply and what it stores. */
class RecurringScriptsTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final long T = 1_700_000_000_000L;

	static final Keys KEYS = Keys.of(KeyNaming.defaults(), "jobs");

	static final String RECORD = "rk:queue:{jobs}:recurring:report";

	RedisServerProcess server;

	RecurringScripts scripts;

	QueueScripts queueScripts;

	@BeforeEach
	void clean() {
		redis.flushAll();
		this.server = redis.server();
		this.scripts = new RecurringScripts(redis.scripts());
		this.queueScripts = new QueueScripts(redis.scripts());
	}

	@Test
	void dueSlotsAreEnqueuedOnceAndTheRecordOnlyMovesForward() {
		Scheduled first = schedule(T, slot(T - 2000), slot(T - 1000), slot(T), slot(T + 1000));
		assertThat(first.serverMillis()).isEqualTo(T);
		assertThat(first.outcomes()).containsExactly(1, 1, 1, -1);
		assertThat(first.lastSlot()).isEqualTo(T);
		assertThat(this.server.command("GET", RECORD)).isEqualTo(Long.toString(T));
		assertThat((Long) this.server.command("PTTL", RECORD)).isBetween(50_000L, 60_000L);
		assertThat(this.server.command("ZSCORE", KEYS.key(0), id(T - 2000))).as("due at its slot")
			.isEqualTo(Long.toString(T - 2000));
		assertThat(this.server.command("HGET", KEYS.key(5), id(T))).isEqualTo("payload " + T);
		// Another instance, or a replay, offering the same slots later: nothing changes.
		Scheduled again = schedule(T + 500, slot(T - 1000), slot(T));
		assertThat(again.outcomes()).containsExactly(0, 0);
		assertThat(again.lastSlot()).isEqualTo(T);
		assertThat(this.server.command("ZCARD", KEYS.key(0))).isEqualTo(3L);
	}

	@Test
	void aSlotAcknowledgedAlreadyIsNotEnqueuedAgain() {
		schedule(T, slot(T));
		Stages.join(this.queueScripts.promote(KEYS, T + 1));
		QueueScripts.Claimed claimed = Stages.join(this.queueScripts.claim(KEYS, "r1", 10, 30_000, T + 1));
		assertThat(claimed.messages()).singleElement().satisfies((message) -> {
			assertThat(message.id()).isEqualTo(id(T));
			assertThat(message.dueMillis()).isEqualTo(T);
			Stages.join(this.queueScripts.ack(KEYS, message.id(), message.token(), T + 2));
		});
		// The queue's deduplication alone would take the id again now; the record does not.
		assertThat(schedule(T + 3, slot(T)).outcomes()).containsExactly(0);
		assertThat(this.server.command("HLEN", KEYS.key(4))).isEqualTo(0L);
	}

	@Test
	void passedOverSlotsMoveTheRecordWithoutAMessage() {
		Scheduled passed = schedule(T, new Slot(T - 3000, id(T - 3000), null), slot(T - 2000));
		assertThat(passed.outcomes()).containsExactly(2, 1);
		assertThat(this.server.command("HLEN", KEYS.key(4))).isEqualTo(1L);
		assertThat(schedule(T, new Slot(T - 3000, id(T - 3000), null)).outcomes()).as("passed by another")
			.containsExactly(0);
	}

	@Test
	void nothingOfferedReadsTheRecord() {
		assertThat(schedule(T).lastSlot()).isEqualTo(-1);
		assertThat(this.server.command("EXISTS", RECORD)).isEqualTo(0L);
		schedule(T, slot(T - 10));
		assertThat(schedule(T).lastSlot()).isEqualTo(T - 10);
	}

	@Test
	void theInstanceThatTookTheLastSlotIsKeptBesideTheRecordAndAnOlderRecordReadsAsUnknown() {
		Scheduled taken = schedule(T, "alpha@host-1:42", slot(T - 1000), slot(T));
		assertThat(taken.lastSlotTakenBy()).isEqualTo("alpha@host-1:42");
		assertThat(this.server.command("GET", RECORD)).as("the record keeps the format older versions read")
			.isEqualTo(Long.toString(T));
		assertThat(this.server.command("GET", RECORD + ":taken-by")).isEqualTo(T + "|alpha@host-1:42");
		assertThat((Long) this.server.command("PTTL", RECORD + ":taken-by")).isBetween(50_000L, 60_000L);
		// Another instance offering the same slot takes nothing: the taker stays.
		assertThat(schedule(T + 10, "bravo@host-2:7", slot(T)).lastSlotTakenBy()).isEqualTo("alpha@host-1:42");
		// An older version takes the next slot: it moves the record and writes no taker, so the taker is unknown.
		this.server.command("SET", RECORD, Long.toString(T + 1000));
		assertThat(schedule(T + 1500, "bravo@host-2:7").lastSlotTakenBy()).isNull();
		// A record written before takers were kept: unknown too, until a slot is taken.
		this.server.command("DEL", RECORD + ":taken-by");
		assertThat(schedule(T + 1500, "bravo@host-2:7").lastSlotTakenBy()).isNull();
		assertThat(schedule(T + 2000, "bravo@host-2:7", slot(T + 2000)).lastSlotTakenBy()).isEqualTo("bravo@host-2:7");
		// A name is data: a bar or markup in it is kept as it is.
		assertThat(schedule(T + 3000, "<b>x|y</b>", slot(T + 3000)).lastSlotTakenBy()).isEqualTo("<b>x|y</b>");
	}

	private Scheduled schedule(long now, String instance, Slot... slots) {
		CompletionStage<Scheduled> call = this.scripts.schedule(KEYS, RECORD.getBytes(StandardCharsets.UTF_8),
				List.of(slots), 60_000, KEYS.channelBytes, now, instance);
		return Stages.join(call);
	}

	private Scheduled schedule(long now, Slot... slots) {
		CompletionStage<Scheduled> call = this.scripts.schedule(KEYS, RECORD.getBytes(StandardCharsets.UTF_8),
				List.of(slots), 60_000, KEYS.channelBytes, now);
		return Stages.join(call);
	}

	private static Slot slot(long millis) {
		return new Slot(millis, id(millis), ("payload " + millis).getBytes(StandardCharsets.UTF_8));
	}

	private static String id(long millis) {
		return "report@" + millis;
	}

}
