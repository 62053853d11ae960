package io.rediskit.queue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import io.rediskit.queue.EnqueueResult.Outcome;
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

import static io.rediskit.queue.QueueScriptsTests.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The deduplication modes of {@code enqueue.lua}, run through {@link QueueScripts} with pinned time: each mode's
 * outcomes as its message waits, runs and finishes, the windows' ends to the millisecond, the stored state and the
 * TTL of the windows key.
 */
class QueueDeduplicationScriptsTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final long T = 1_700_000_000_000L;

	static final Keys KEYS = Keys.of(KeyNaming.defaults(), "q");

	RedisServerProcess server;

	QueueScripts scripts;

	int request;

	@BeforeEach
	void clean() {
		redis.flushAll();
		this.server = redis.server();
		this.scripts = new QueueScripts(redis.scripts());
	}

	@Test
	void untilFinishedDropsWhileTheMessageIsInTheQueueInAnyState() {
		Deduplication mode = Deduplication.UNTIL_FINISHED;
		assertThat(enqueue("a", "1", 0, mode, T)).isEqualTo(new EnqueueResult("a", Outcome.ENQUEUED));
		assertThat(enqueue("a", "2", 0, mode, T)).isEqualTo(new EnqueueResult("a", Outcome.DUPLICATE));
		ClaimedMessage running = claimOne(T);
		assertThat(enqueue("a", "3", 0, mode, T + 1)).isEqualTo(new EnqueueResult("a", Outcome.DUPLICATE));
		assertThat(await(this.scripts.ack(KEYS, "a", running.token(), T + 2)).outcome()).isEqualTo(Settled.DONE);
		assertThat(enqueue("a", "4", 0, mode, T + 3)).isEqualTo(new EnqueueResult("a", Outcome.ENQUEUED));
		assertThat(payload("a")).isEqualTo("4");
	}

	@Test
	void untilStartedDropsWhileTheMessageWaitsAndAddsAnotherOnceItIsClaimed() {
		Deduplication mode = Deduplication.UNTIL_STARTED;
		assertThat(enqueue("a", "1", 0, mode, T).outcome()).isEqualTo(Outcome.ENQUEUED);
		assertThat(enqueue("a", "2", 0, mode, T).outcome()).isEqualTo(Outcome.DUPLICATE);
		ClaimedMessage first = claimOne(T);
		assertThat(first.id()).isEqualTo("a");
		EnqueueResult second = enqueue("a", "3", 0, mode, T + 1);
		assertThat(second.outcome()).isEqualTo(Outcome.ENQUEUED);
		assertThat(second.id()).isEqualTo("a~other-3");
		assertThat(this.server.command("HGET", KEYS_UNIQUE, "a")).isEqualTo("a~other-3");
		assertThat(enqueue("a", "4", 0, mode, T + 2)).isEqualTo(new EnqueueResult("a", Outcome.DUPLICATE));
		assertThat(await(this.scripts.ack(KEYS, "a", first.token(), T + 3)).outcome()).isEqualTo(Settled.DONE);
		assertThat(enqueue("a", "5", 0, mode, T + 4).outcome()).as("the second still waits").isEqualTo(Outcome.DUPLICATE);
		ClaimedMessage claimed = claimOne(T + 5);
		assertThat(claimed.id()).isEqualTo("a~other-3");
		assertThat(new String(claimed.payload(), StandardCharsets.UTF_8)).isEqualTo("3");
		assertThat(enqueue("a", "6", 0, mode, T + 6)).as("its own id is free again")
			.isEqualTo(new EnqueueResult("a", Outcome.ENQUEUED));
		assertThat(this.server.command("HEXISTS", KEYS_UNIQUE, "a")).isEqualTo(0L);
	}

	@Test
	void untilStartedCountsARetriedOrDeadMessageAsStarted() {
		Deduplication mode = Deduplication.UNTIL_STARTED;
		enqueue("a", "1", 0, mode, T);
		ClaimedMessage first = claimOne(T);
		await(this.scripts.retry(KEYS, "a", first.token(), 60_000, QueueSpec.defaults(), "failed", T + 1));
		assertThat(enqueue("a", "2", 0, mode, T + 2).outcome()).isEqualTo(Outcome.ENQUEUED);
	}

	@Test
	void throttleDropsWithinTheWindowOfTheLastAddedEnqueueEvenAfterItFinished() {
		Deduplication mode = Deduplication.throttle(Duration.ofSeconds(10));
		assertThat(enqueue("a", "1", 0, mode, T).outcome()).isEqualTo(Outcome.ENQUEUED);
		assertThat(this.server.command("ZSCORE", KEYS_WINDOWS, "a")).isEqualTo(Long.toString(T + 10_000));
		assertThat((Long) this.server.command("PTTL", KEYS_WINDOWS)).isBetween(1L, 10_000L);
		assertThat(enqueue("a", "2", 0, mode, T + 5000).outcome()).isEqualTo(Outcome.DUPLICATE);
		ClaimedMessage running = claimOne(T + 5000);
		await(this.scripts.ack(KEYS, "a", running.token(), T + 5001));
		assertThat(enqueue("a", "3", 0, mode, T + 9999)).as("finished, but within the window")
			.isEqualTo(new EnqueueResult("a", Outcome.DUPLICATE));
		assertThat(enqueue("a", "4", 0, mode, T + 10_000)).isEqualTo(new EnqueueResult("a", Outcome.ENQUEUED));
		assertThat(this.server.command("ZSCORE", KEYS_WINDOWS, "a")).isEqualTo(Long.toString(T + 20_000));
		assertThat(enqueue("a", "5", 0, mode, T + 20_000).outcome()).as("after the window even while the last waits")
			.isEqualTo(Outcome.ENQUEUED);
		assertThat(await(this.scripts.stats(KEYS, T + 20_000)).total()).isEqualTo(2);
	}

	@Test
	void debounceReplacesTheWaitingMessageWithinTheWindowAndOpensItAgain() {
		Deduplication mode = Deduplication.debounce(Duration.ofSeconds(10));
		assertThat(enqueue("a", "1", 10_000, mode, T).outcome()).isEqualTo(Outcome.ENQUEUED);
		assertThat(enqueue("a", "2", 10_000, mode, T + 4000)).isEqualTo(new EnqueueResult("a", Outcome.REPLACED));
		assertThat(this.server.command("ZSCORE", KEYS.key(0), "a")).isEqualTo(Long.toString(T + 14_000));
		assertThat(this.server.command("HGET", KEYS.key(4), "a")).isEqualTo((T + 14_000) + "|0|");
		assertThat(payload("a")).isEqualTo("2");
		assertThat(enqueue("a", "3", 10_000, mode, T + 13_999).outcome()).isEqualTo(Outcome.REPLACED);
		assertThat(this.server.command("ZSCORE", KEYS_WINDOWS, "a")).isEqualTo(Long.toString(T + 23_999));
		assertThat(await(this.scripts.stats(KEYS, T + 14_000)).total()).isEqualTo(1);
		assertThat(claimOne(T + 23_999).payload()).asString(StandardCharsets.UTF_8).isEqualTo("3");
		EnqueueResult started = enqueue("a", "4", 0, mode, T + 24_000);
		assertThat(started.outcome()).as("within the window, but it runs: a new one").isEqualTo(Outcome.ENQUEUED);
		assertThat(started.id()).startsWith("a~");
	}

	@Test
	void debounceMovesAReadyMessageBackToItsNewDueTimeAndPriority() {
		Deduplication mode = Deduplication.debounce(Duration.ofSeconds(10));
		enqueue("a", "1", 0, mode, T);
		await(this.scripts.promote(KEYS, T));
		assertThat(this.server.command("LLEN", KEYS.key(1))).isEqualTo(1L);
		Outgoing high = new Outgoing("a", utf8("2"), 5000, 0, QueuePriority.HIGH).deduplicated(mode, "a~other");
		assertThat(await(this.scripts.enqueue(KEYS, List.of(high), T + 1000)).results()[0].outcome())
			.isEqualTo(Outcome.REPLACED);
		assertThat(this.server.command("LLEN", KEYS.key(1))).isEqualTo(0L);
		assertThat(this.server.command("ZSCORE", new String(KEYS.levels[0], StandardCharsets.UTF_8), "a"))
			.isEqualTo(Long.toString(T + 6000));
	}

	@Test
	void debounceOutsideTheWindowAddsAnother() {
		Deduplication mode = Deduplication.debounce(Duration.ofSeconds(1));
		enqueue("a", "1", 60_000, mode, T);
		EnqueueResult later = enqueue("a", "2", 60_000, mode, T + 1000);
		assertThat(later.outcome()).isEqualTo(Outcome.ENQUEUED);
		assertThat(later.id()).startsWith("a~");
		assertThat(enqueue("a", "3", 60_000, mode, T + 1500)).as("replaces the latest")
			.isEqualTo(new EnqueueResult(later.id(), Outcome.REPLACED));
		assertThat(payload("a")).isEqualTo("1");
		assertThat(payload(later.id())).isEqualTo("3");
	}

	@Test
	void aGeneratedIdIsOnlyCheckedForItselfAndOneCallAppliesItsEntriesInOrder() {
		Deduplication mode = Deduplication.throttle(Duration.ofMinutes(1));
		List<Outgoing> batch = List.of(out("a", "1", 0, mode), out("a", "2", 0, mode),
				new Outgoing("g", utf8("g"), 0, 0, QueuePriority.NORMAL), new Outgoing("g", utf8("h"), 0, 0));
		EnqueueResult[] results = await(this.scripts.enqueue(KEYS, batch, T)).results();
		assertThat(results).extracting(EnqueueResult::outcome)
			.containsExactly(Outcome.ENQUEUED, Outcome.DUPLICATE, Outcome.ENQUEUED, Outcome.DUPLICATE);
	}

	@Test
	void entriesOfTheUniqueHashWhoseMessageIsGoneAreDropped() {
		Deduplication mode = Deduplication.UNTIL_STARTED;
		for (int i = 0; i < 20; i++) {
			enqueue("k" + i, "1", 0, mode, T);
		}
		await(this.scripts.promote(KEYS, T));
		List<ClaimedMessage> first = await(this.scripts.claim(KEYS, "r0", 20, 30_000, T)).messages();
		for (int i = 0; i < 20; i++) {
			enqueue("k" + i, "2", 0, mode, T + 1);
		}
		assertThat(this.server.command("HLEN", KEYS_UNIQUE)).isEqualTo(20L);
		for (ClaimedMessage message : first) {
			await(this.scripts.ack(KEYS, message.id(), message.token(), T + 2));
		}
		await(this.scripts.promote(KEYS, T + 3));
		for (ClaimedMessage message : await(this.scripts.claim(KEYS, "r1", 20, 30_000, T + 3)).messages()) {
			await(this.scripts.ack(KEYS, message.id(), message.token(), T + 4));
		}
		// Every message is gone; each entry is dropped when its id is enqueued again or a later write samples it.
		for (int i = 0; i < 20; i++) {
			enqueue("k" + i, "3", 0, mode, T + 5);
		}
		assertThat(this.server.command("HLEN", KEYS_UNIQUE)).isEqualTo(0L);
		assertThat(await(this.scripts.purge(KEYS))).isEqualTo(20);
		assertThat(this.server.command("EXISTS", KEYS_UNIQUE)).isEqualTo(0L);
	}

	static final String KEYS_UNIQUE = new String(KEYS.unique, StandardCharsets.UTF_8);

	static final String KEYS_WINDOWS = new String(KEYS.windows, StandardCharsets.UTF_8);

	private EnqueueResult enqueue(String id, String payload, long delay, Deduplication mode, long now) {
		return await(this.scripts.enqueue(KEYS, List.of(out(id, payload, delay, mode)), now)).results()[0];
	}

	private Outgoing out(String id, String payload, long delay, Deduplication mode) {
		return new Outgoing(id, utf8(payload), delay, 0, QueuePriority.NORMAL).deduplicated(mode,
				id + "~other-" + payload);
	}

	private ClaimedMessage claimOne(long now) {
		await(this.scripts.promote(KEYS, now));
		List<ClaimedMessage> messages = await(this.scripts.claim(KEYS, "r" + (++this.request), 1, 30_000, now))
			.messages();
		assertThat(messages).hasSize(1);
		return messages.get(0);
	}

	private String payload(String id) {
		return (String) this.server.command("HGET", KEYS.key(5), id);
	}

	private static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
