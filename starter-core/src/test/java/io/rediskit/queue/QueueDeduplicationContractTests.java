package io.rediskit.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.rediskit.queue.EnqueueResult.Outcome;
import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.Topology;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Unique jobs on every topology (run once per {@link Topology}): many threads enqueue the same ids at once, and
 * an {@link UniqueDeliveryChecker} compares what they were told with what consumers got, per mode. Nothing waits
 * for time to pass: the windows (an hour) outlast every test, a window's end is {@link QueueDeduplicationScriptsTests}'s
 * (pinned time), and each phase starts when the last one's condition holds (all claimed, all delivered).
 */
class QueueDeduplicationContractTests extends TopologyContract {

	static final int KEYS = 20;

	static final int THREADS = 4;

	static final int ROUNDS = 5;

	static final Duration WINDOW = Duration.ofHours(1);

	QueueRegistry registry;

	ExecutorService pool;

	@BeforeEach
	void setUp() {
		this.registry = new QueueRegistry(TopologyScripts.of(this.redis), this.redis.connections(), KeyNaming.defaults(),
				JsonMapper.builder().build(), List.of(), (name) -> null);
		this.pool = Executors.newFixedThreadPool(THREADS + 1);
	}

	@AfterEach
	void tearDown() {
		this.pool.shutdownNow();
		this.registry.close();
	}

	private RedisQueue<Job> queue(Deduplication deduplication) {
		return this.registry.create(this.redis.unique("unique"),
				QueueTesting.fastSpec().withDeduplication(deduplication), Job.class);
	}

	@Test
	void untilFinishedAddsOneMessagePerIdWhateverTheConcurrency() throws Exception {
		RedisQueue<Job> queue = queue(Deduplication.UNTIL_FINISHED);
		UniqueDeliveryChecker checker = new UniqueDeliveryChecker();
		enqueueConcurrently(queue, checker, 0, Duration.ZERO);
		checker.drain(queue, KEYS);
		assertThat(checker.violations(UniqueDeliveryChecker.each(KEYS, 1))).isEmpty();
		assertThat(queue.stats().total()).isZero();
	}

	@Test
	void untilStartedAddsOneMorePerIdOnceTheFirstIsClaimed() throws Exception {
		RedisQueue<Job> queue = queue(Deduplication.UNTIL_STARTED);
		UniqueDeliveryChecker checker = new UniqueDeliveryChecker();
		enqueueConcurrently(queue, checker, 0, Duration.ZERO);
		List<QueueMessage<Job>> first = QueueTesting.claim(queue, KEYS);
		enqueueConcurrently(queue, checker, 1000, Duration.ZERO);
		checker.deliver(first);
		checker.drain(queue, 2 * KEYS);
		assertThat(checker.violations(UniqueDeliveryChecker.each(KEYS, 2))).isEmpty();
		assertThat(queue.stats().total()).isZero();
	}

	@Test
	void throttleAddsOneMessagePerIdPerWindowWhileConsumersFinishThem() throws Exception {
		RedisQueue<Job> queue = queue(Deduplication.throttle(WINDOW));
		UniqueDeliveryChecker checker = new UniqueDeliveryChecker();
		AtomicBoolean producing = new AtomicBoolean(true);
		Future<?> consumer = this.pool.submit(() -> {
			while (producing.get() || checker.deliveryCount() < KEYS) {
				checker.deliver(queue.poll(KEYS, Duration.ofMillis(100)));
			}
			return null;
		});
		enqueueConcurrently(queue, checker, 0, Duration.ZERO);
		// Each id's message has finished (delivered and acked): within the window the id is still taken.
		producing.set(false);
		consumer.get(60, TimeUnit.SECONDS);
		enqueueConcurrently(queue, checker, 1000, Duration.ZERO);
		assertThat(checker.violations(UniqueDeliveryChecker.each(KEYS, 1))).isEmpty();
		assertThat(queue.stats().total()).isZero();
	}

	@Test
	void debounceKeepsOneMessagePerIdAndRunsTheLastPayload() throws Exception {
		RedisQueue<Job> queue = queue(Deduplication.debounce(WINDOW));
		UniqueDeliveryChecker checker = new UniqueDeliveryChecker();
		enqueueConcurrently(queue, checker, 0, Duration.ofHours(1));
		assertThat(queue.stats().delayed()).isEqualTo(KEYS);
		for (int k = 0; k < KEYS; k++) {
			String key = "k" + k;
			EnqueueResult result = queue.tryEnqueue(QueueEntry.of(new Job(key, 9999)).withId(key));
			assertThat(result).isEqualTo(new EnqueueResult(key, Outcome.REPLACED));
			checker.enqueued(key, 9999, result);
		}
		// The last payload is this one, given after every concurrent one: only it may run.
		checker.drain(queue, KEYS);
		assertThat(checker.violations(UniqueDeliveryChecker.each(KEYS, 1))).isEmpty();
		for (int k = 0; k < KEYS; k++) {
			assertThat(checker.payloadsDelivered("k" + k)).containsExactly(9999);
		}
		assertThat(queue.stats().total()).isZero();
	}

	/** Every thread enqueues every id {@value #ROUNDS} times, all threads released at once. */
	private void enqueueConcurrently(RedisQueue<Job> queue, UniqueDeliveryChecker checker, int base, Duration delay)
			throws Exception {
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> producers = new ArrayList<>();
		for (int t = 0; t < THREADS; t++) {
			int thread = t;
			producers.add(this.pool.submit(() -> {
				start.await();
				for (int round = 0; round < ROUNDS; round++) {
					List<CompletionStage<EnqueueResult>> calls = new ArrayList<>();
					for (int k = 0; k < KEYS; k++) {
						int payload = base + thread * ROUNDS + round;
						String key = "k" + k;
						calls.add(queue.tryEnqueueAsync(QueueEntry.of(new Job(key, payload)).withId(key).withDelay(delay))
							.whenComplete((result, failure) -> {
								if (result != null) {
									checker.enqueued(key, payload, result);
								}
							}));
					}
					for (CompletionStage<EnqueueResult> call : calls) {
						call.toCompletableFuture().get(30, TimeUnit.SECONDS);
					}
				}
				return null;
			}));
		}
		start.countDown();
		for (Future<?> producer : producers) {
			producer.get(60, TimeUnit.SECONDS);
		}
	}

}
