package io.rediskit.queue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.rediskit.queue.RecurringJobsTests.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A recurring job on three application instances, each a JVM of its own ({@link RecurringWorker}), consumed and
 * acknowledged here: each slot delivered exactly once over 60 slots of 200 ms with one instance's clock 2 s ahead,
 * and the slots of an instance killed with {@code kill -9} taken by the others.
 */
class RecurringConcurrencyTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	private static final long RATE = 200;

	@BeforeEach
	void setUp() {
		redis.flushAll();
	}

	@Test
	void threeInstancesOneClockSkewedDeliverEachOf60SlotsOnce() throws Exception {
		assumeTrue(Files.isExecutable(Path.of("/usr/bin/faketime")),
				"faketime (apt package faketime) skews one instance's clock; .ci/run installs it");
		List<RecurringWorker.Handle> workers = new ArrayList<>();
		try (Consumer consumer = new Consumer()) {
			for (long skew : new long[] { 0, 0, 2000 }) {
				workers.add(RecurringWorker.start(skew, Integer.toString(redis.server().port()), "skewed",
						Long.toString(RATE)));
			}
			for (RecurringWorker.Handle worker : workers) {
				worker.awaitReady(Duration.ofSeconds(60));
			}
			long first = consumer.firstSlot(workers);
			long end = first + 59 * RATE;
			await("60 slots delivered", Duration.ofSeconds(40), () -> consumer.delivered(end));
			consumer.assertEachSlotOnce(first, end);
			assertNoSlotEnqueuedTwice(workers);
			// The skewed instance took part without a failed call. Which instance enqueues a slot is a race the
			// fastest caller wins, so its share is not asserted: on a slowed machine one instance can lose them all.
			assertThat(workers.get(2).process.isAlive()).as("the skewed instance runs").isTrue();
			assertThat(workers.get(2).failures()).as("failed calls of the skewed instance").isEmpty();
		}
		finally {
			workers.forEach(RecurringWorker.Handle::close);
		}
	}

	@Test
	void theSlotsOfAKilledInstanceAreTakenByAnother() throws Exception {
		List<RecurringWorker.Handle> workers = new ArrayList<>();
		try (Consumer consumer = new Consumer()) {
			for (int i = 0; i < 3; i++) {
				workers.add(RecurringWorker.start(0, Integer.toString(redis.server().port()), "killed",
						Long.toString(RATE)));
			}
			for (RecurringWorker.Handle worker : workers) {
				worker.awaitReady(Duration.ofSeconds(60));
			}
			long first = consumer.firstSlot(workers);
			await("15 slots delivered", Duration.ofSeconds(20), () -> consumer.delivered(first + 14 * RATE));
			// The instance that enqueued the latest slot is the one to kill: it was taking slots.
			RecurringWorker.Handle killed = workers.stream()
				.max(Comparator.comparingLong((w) -> w.enqueued().stream().mapToLong(Long::longValue).max().orElse(0)))
				.orElseThrow();
			killed.process.destroyForcibly().waitFor();
			long killedAt = serverMillis();
			long end = first + 44 * RATE;
			await("30 more slots delivered", Duration.ofSeconds(30), () -> consumer.delivered(end));
			consumer.assertEachSlotOnce(first, end);
			assertNoSlotEnqueuedTwice(workers);
			assertThat(killed.enqueued()).isNotEmpty();
			List<Long> afterKill = new ArrayList<>();
			workers.stream().filter((w) -> w != killed).forEach((w) -> afterKill.addAll(w.enqueued()));
			afterKill.removeIf((slot) -> slot <= killedAt);
			assertThat(afterKill).as("slots after the kill, enqueued by the others").hasSizeGreaterThan(20);
		}
		finally {
			workers.forEach(RecurringWorker.Handle::close);
		}
	}

	private static long serverMillis() {
		@SuppressWarnings("unchecked")
		List<String> time = (List<String>) redis.server().command("TIME");
		return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
	}

	private static void assertNoSlotEnqueuedTwice(List<RecurringWorker.Handle> workers) {
		List<Long> all = new ArrayList<>();
		workers.forEach((worker) -> all.addAll(worker.enqueued()));
		assertThat(all).as("slots enqueued by all instances").doesNotHaveDuplicates();
	}

	/** Consumes the queue {@code jobs} on a thread of its own, acknowledging each message. */
	static final class Consumer implements AutoCloseable {

		private final QueueRegistry queues = QueueTesting.registry(redis);

		private final RedisQueue<RecurringSlot> queue = this.queues.create("jobs", QueueTesting.fastSpec(),
				RecurringSlot.class);

		/** Deliveries per slot. */
		private final TreeMap<Long, Integer> deliveries = new TreeMap<>();

		private final List<String> problems = new ArrayList<>();

		private final AtomicBoolean running = new AtomicBoolean(true);

		private final Thread thread = new Thread(this::consume, "recurring-consumer");

		Consumer() {
			this.thread.start();
		}

		private void consume() {
			while (this.running.get()) {
				try {
					for (QueueMessage<RecurringSlot> message : this.queue.poll(100, Duration.ofMillis(200))) {
						RecurringSlot slot = message.payload();
						synchronized (this) {
							this.deliveries.merge(slot.slot().toEpochMilli(), 1, Integer::sum);
							if (!message.id().equals(RecurringSlot.messageId(slot.job(), slot.slot()))) {
								this.problems.add("id " + message.id() + " for " + slot);
							}
						}
						message.ack();
					}
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		}

		/**
		 * The first slot, once delivered, and an instance says it enqueued it: the first instance to call begins
		 * with the first slot after its call, however long after the instances said they were ready (a bound on that
		 * failed on a slowed machine, where a worker's first call took 1.4 s); every slot from it on is checked.
		 */
		long firstSlot(List<RecurringWorker.Handle> workers) {
			await("a first slot", Duration.ofSeconds(30), () -> {
				synchronized (this) {
					return !this.deliveries.isEmpty();
				}
			});
			long first;
			synchronized (this) {
				first = this.deliveries.firstKey();
			}
			await("the instance that enqueued slot " + first + " to say so", Duration.ofSeconds(30),
					() -> workers.stream().anyMatch((worker) -> worker.enqueued().contains(first)));
			return first;
		}

		synchronized boolean delivered(long slot) {
			return this.deliveries.containsKey(slot);
		}

		synchronized void assertEachSlotOnce(long first, long last) {
			assertThat(this.problems).isEmpty();
			assertThat(this.deliveries.values()).as("deliveries per slot " + this.deliveries).allMatch((n) -> n == 1);
			for (long slot = first; slot <= last; slot += RATE) {
				assertThat(this.deliveries).as("slot " + slot + " delivered").containsKey(slot);
			}
		}

		@Override
		public void close() throws InterruptedException {
			this.running.set(false);
			this.thread.join(5000);
			this.queues.close();
		}

	}

}
