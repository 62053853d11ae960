package io.rediskit.queue;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.rediskit.queue.EnqueueResult.Outcome;
import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Unique jobs across JVMs: two producer JVMs ({@link QueueWorker} {@code enqueue}) and two threads of this one
 * enqueue the same 20 ids, 5 times each, at once, in every mode; {@link UniqueDeliveryChecker} compares what each
 * producer was told with what a consumer got. Phases follow conditions, not time: each round of enqueues ends when
 * every producer printed {@code done}, the windows (an hour) outlast the test.
 */
class QueueDeduplicationConcurrencyTests {

	static final int KEYS = 20;

	static final int ROUNDS = 5;

	static final int THREADS = 2;

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	QueueRegistry registry;

	List<Process> workers = new ArrayList<>();

	ExecutorService pool;

	@BeforeEach
	void setUp() throws Exception {
		redis.flushAll();
		this.registry = QueueTesting.registry(redis);
		this.pool = Executors.newFixedThreadPool(THREADS + 2);
		for (int w = 0; w < 2; w++) {
			Process worker = QueueWorker.start("enqueue", Integer.toString(redis.server().port()),
					Integer.toString(KEYS), Integer.toString(ROUNDS));
			this.workers.add(worker);
			assertThat(QueueConcurrencyTests.readLine(worker.getInputStream())).isEqualTo("ready");
		}
	}

	@AfterEach
	void tearDown() {
		this.workers.forEach(Process::destroyForcibly);
		this.pool.shutdownNow();
		this.registry.close();
	}

	@Test
	void everyModeHoldsAcrossJvms() throws Exception {
		RedisQueue<Job> finished = queue("until-finished");
		UniqueDeliveryChecker checker = new UniqueDeliveryChecker();
		round(finished, Deduplication.UNTIL_FINISHED, Duration.ZERO, 0, checker);
		checker.drain(finished, KEYS);
		assertThat(checker.violations(UniqueDeliveryChecker.each(KEYS, 1))).as("until finished").isEmpty();

		RedisQueue<Job> started = queue("until-started");
		checker = new UniqueDeliveryChecker();
		round(started, Deduplication.UNTIL_STARTED, Duration.ZERO, 0, checker);
		List<QueueMessage<Job>> first = QueueTesting.claim(started, KEYS);
		round(started, Deduplication.UNTIL_STARTED, Duration.ZERO, 1000, checker);
		checker.deliver(first);
		checker.drain(started, 2 * KEYS);
		assertThat(checker.violations(UniqueDeliveryChecker.each(KEYS, 2))).as("until started").isEmpty();

		RedisQueue<Job> throttled = queue("throttle");
		checker = new UniqueDeliveryChecker();
		Deduplication throttle = Deduplication.throttle(Duration.ofHours(1));
		round(throttled, throttle, Duration.ZERO, 0, checker);
		checker.drain(throttled, KEYS);
		round(throttled, throttle, Duration.ZERO, 1000, checker);
		assertThat(checker.violations(UniqueDeliveryChecker.each(KEYS, 1))).as("throttle").isEmpty();
		assertThat(throttled.stats().total()).isZero();

		RedisQueue<Job> debounced = queue("debounce");
		checker = new UniqueDeliveryChecker();
		Deduplication debounce = Deduplication.debounce(Duration.ofHours(1));
		round(debounced, debounce, Duration.ofHours(1), 0, checker);
		assertThat(debounced.stats().delayed()).isEqualTo(KEYS);
		for (int k = 0; k < KEYS; k++) {
			String key = "k" + k;
			EnqueueResult result = debounced.tryEnqueue(QueueEntry.of(new Job(key, 9999)).withId(key)
				.withDeduplication(debounce));
			assertThat(result.outcome()).isEqualTo(Outcome.REPLACED);
			checker.enqueued(key, 9999, result);
		}
		checker.drain(debounced, KEYS);
		assertThat(checker.violations(UniqueDeliveryChecker.each(KEYS, 1))).as("debounce").isEmpty();
		for (int k = 0; k < KEYS; k++) {
			assertThat(checker.payloadsDelivered("k" + k)).containsExactly(9999);
		}
	}

	private RedisQueue<Job> queue(String name) {
		return this.registry.create(name, QueueSpec.defaults().withPollInterval(Duration.ofMillis(200)), Job.class);
	}

	/** One round: both JVMs and this one's threads enqueue every id {@value #ROUNDS} times, all at once. */
	private void round(RedisQueue<Job> queue, Deduplication deduplication, Duration delay, int base,
			UniqueDeliveryChecker checker) throws Exception {
		List<Future<?>> producers = new ArrayList<>();
		for (Process worker : this.workers) {
			OutputStream in = worker.getOutputStream();
			in.write(("go " + queue.name() + " " + deduplication.mode() + " " + deduplication.window().toMillis() + " "
					+ delay.toMillis() + " " + base + "\n").getBytes(StandardCharsets.UTF_8));
			in.flush();
			producers.add(this.pool.submit(() -> readResults(worker.getInputStream(), checker)));
		}
		for (int t = 0; t < THREADS; t++) {
			int payloadBase = base + 100 * (t + 1);
			producers.add(this.pool.submit((Callable<Void>) () -> {
				for (int round = 0; round < ROUNDS; round++) {
					for (int k = 0; k < KEYS; k++) {
						String key = "k" + k;
						int payload = payloadBase + round;
						checker.enqueued(key, payload, queue.tryEnqueue(QueueEntry.of(new Job(key, payload)).withId(key)
							.withDelay(delay).withDeduplication(deduplication)));
					}
				}
				return null;
			}));
		}
		for (Future<?> producer : producers) {
			producer.get(60, TimeUnit.SECONDS);
		}
	}

	private static Void readResults(InputStream out, UniqueDeliveryChecker checker) throws Exception {
		String line;
		while (!(line = QueueConcurrencyTests.readLine(out)).equals("done")) {
			assertThat(line).startsWith("R ");
			String[] parts = line.split(" ");
			checker.enqueued(parts[1], Integer.parseInt(parts[2]),
					new EnqueueResult(parts[4], Outcome.valueOf(parts[3])));
		}
		return null;
	}

}
