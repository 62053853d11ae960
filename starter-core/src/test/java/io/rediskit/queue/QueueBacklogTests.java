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

import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A backlog due at once, with every consumer down while they came due: all are delivered, and the server's
 * {@code SLOWLOG} shows that no script ran long, since due messages move in bounded batches. The count is
 * {@code -Drediskit.queue.backlog}: 250 000 by default (a script that moved the whole backlog would run for
 * hundreds of milliseconds at that size, so the bound still catches it, in a quarter of CI's time), 1 000 000 for
 * the figures in {@code docs/queue-reference.md}.
 */
class QueueBacklogTests {

	static final int MESSAGES = Integer.getInteger("rediskit.queue.backlog", 250_000);

	/** A script slower than this is logged by the server; the tests report how many and the slowest. */
	static final long SLOWLOG_MICROS = 5_000;

	/**
	 * No script may run longer. A bounded batch runs for a few milliseconds on a quiet machine, but the server's
	 * clock also counts the time the operating system did not run it: beside two busy loops one such script took 55
	 * ms. A script that moved the whole backlog runs for hundreds of milliseconds whatever the load, so this bound
	 * tells the two apart with room on both sides.
	 */
	static final long MAX_SCRIPT_MICROS = 150_000;

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
	void aBacklogDueAtOnceIsAllDeliveredWithoutALongScript() throws Exception {
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
		assertThat(queue.stats().total()).isZero();
		List<Long> slow = slowScripts();
		long slowest = slow.stream().mapToLong(Long::longValue).max().orElse(0);
		System.out.printf("queue backlog: %d messages due at once delivered in %.1f s; %d scripts over %d us, "
				+ "slowest %d us%n", MESSAGES, seconds, slow.size(), SLOWLOG_MICROS, slowest);
		assertThat(slowest).as("slowest script in microseconds").isLessThan(MAX_SCRIPT_MICROS);
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
