package io.rediskit.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A backlog due at once, with every consumer down while they came due: all are delivered, exactly once each, and the
 * queue is empty after. The count is {@code -Drediskit.queue.backlog}: 250 000 by default, 1 000 000 for the
 * figures in {@code docs/queue-reference.md}.
 * <p>
 * That no script runs long is a property of the scripts, tested where it is guaranteed: promote moves at most
 * {@link QueueScripts#MOVE_BATCH} messages a call ({@code QueueScriptsTests}), a claim takes at most its count. The
 * server's {@code SLOWLOG} of this run is printed for the record only: its durations count the time the operating
 * system did not run the server, so a bounded script beside two busy loops was logged at 55 and 116 ms in flake runs,
 * and no bound on them separates a bounded batch from a whole-backlog move on a loaded machine.
 */
class QueueBacklogTests {

	static final int MESSAGES = Integer.getInteger("rediskit.queue.backlog", 250_000);

	/** A script slower than this is logged by the server; the tests report how many and the slowest. */
	static final long SLOWLOG_MICROS = 5_000;

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.withCommandTimeout(Duration.ofSeconds(30));

	QueueRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = QueueTesting.registry(redis);
	}

	@AfterEach
	void tearDown() {
		this.registry.close();
		redis.flushAll();
	}

	@Test
	void aBacklogDueAtOnceIsAllDeliveredOnce() throws Exception {
		RedisQueue<Job> queue = this.registry.create("backlog", QueueTesting.fastSpec()
			.withVisibilityTimeout(Duration.ofMinutes(5)), Job.class);
		Instant due = Instant.now().plusSeconds(1);
		List<CompletableFuture<List<String>>> batches = new ArrayList<>();
		for (int from = 0; from < MESSAGES; from += 500) {
			List<QueueEntry<Job>> entries = new ArrayList<>(500);
			for (int i = from; i < Math.min(MESSAGES, from + 500); i++) {
				entries.add(QueueEntry.of(new Job("b", i)).withDueAt(due));
			}
			batches.add(queue.enqueueAllAsync(entries).toCompletableFuture());
			if (batches.size() >= 64) {
				batches.remove(0).join();
			}
		}
		batches.forEach(CompletableFuture::join);
		while (Instant.now().isBefore(due.plusMillis(100))) {
			Thread.sleep(50);
		}
		assertThat(queue.stats().ready()).isEqualTo(MESSAGES);
		redis.server().command("CONFIG", "SET", "slowlog-log-slower-than", Long.toString(SLOWLOG_MICROS));
		redis.server().command("CONFIG", "SET", "slowlog-max-len", "100000");
		redis.server().command("SLOWLOG", "RESET");
		long start = System.nanoTime();
		BitSet seen = new BitSet(MESSAGES);
		AtomicInteger duplicates = new AtomicInteger();
		ExecutorService consumers = Executors.newFixedThreadPool(2);
		List<Future<?>> running = new ArrayList<>();
		for (int c = 0; c < 2; c++) {
			running.add(consumers.submit(() -> {
				while (true) {
					List<QueueMessage<Job>> messages = queue.poll(500, Duration.ofMillis(500));
					if (messages.isEmpty()) {
						return null;
					}
					List<CompletableFuture<Void>> acks = new ArrayList<>(messages.size());
					for (QueueMessage<Job> message : messages) {
						synchronized (seen) {
							if (seen.get(message.payload().number())) {
								duplicates.incrementAndGet();
							}
							seen.set(message.payload().number());
						}
						acks.add(message.ackAsync().toCompletableFuture());
					}
					acks.forEach(CompletableFuture::join);
				}
			}));
		}
		for (Future<?> consumer : running) {
			consumer.get(5, TimeUnit.MINUTES);
		}
		consumers.shutdown();
		double seconds = (System.nanoTime() - start) / 1e9;
		assertThat(seen.cardinality()).isEqualTo(MESSAGES);
		assertThat(duplicates).as("messages delivered twice").hasValue(0);
		assertThat(queue.stats().total()).isZero();
		List<Long> slow = slowScripts();
		long slowest = slow.stream().mapToLong(Long::longValue).max().orElse(0);
		System.out.printf("queue backlog: %d messages due at once delivered in %.1f s; %d scripts over %d us, "
				+ "slowest %d us%n", MESSAGES, seconds, slow.size(), SLOWLOG_MICROS, slowest);
	}

	@SuppressWarnings("unchecked")
	private static List<Long> slowScripts() {
		List<Object> entries = (List<Object>) redis.server().command("SLOWLOG", "GET", "100000");
		List<Long> durations = new ArrayList<>();
		for (Object entry : entries) {
			List<Object> fields = (List<Object>) entry;
			List<Object> command = (List<Object>) fields.get(3);
			String name = String.valueOf(command.get(0)).toUpperCase();
			if (name.startsWith("EVAL")) {
				durations.add((Long) fields.get(2));
			}
		}
		return durations;
	}

}
