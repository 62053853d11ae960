package io.rediskit.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.queue.QueueScripts.Claimed;
import io.rediskit.queue.QueueScripts.ClaimedMessage;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.Stages;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A measuring harness, off unless {@code -Drediskit.measure=true}: a burst of messages due at the same instant
 * drained by one listener container with a handler that does nothing, and in the same run the floor, the
 * claim and ack scripts called back to back at the container's batch size with nothing else. On a busy machine
 * the absolute figures mean little; the ratio of the container's deliveries per second to the floor's, taken
 * before and after a change, shows what the change did. It asserts that every message arrived exactly once.
 */
@EnabledIfSystemProperty(named = "rediskit.measure", matches = "true")
class QueueDrainMeasurementTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final int MESSAGES = Integer.getInteger("rediskit.measure.messages", 5000);

	static final int CONCURRENCY = 8;

	QueueRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = QueueTesting.registry(redis);
	}

	@AfterEach
	void tearDown() {
		this.registry.close();
	}

	@Test
	void burstLatenessAgainstTheFloor() throws Exception {
		// Warm both paths (JIT, script cache, connections) before measuring.
		drain("warm", MESSAGES / 5);
		floor("warm", MESSAGES / 5);
		double[] container = drain("burst", MESSAGES);
		double floor = floor("floor", MESSAGES);
		System.out.printf("queue drain: %d messages, concurrency %d: container %.0f/s, lateness p50 %.0f ms,"
				+ " p99 %.0f ms, max %.0f ms; floor %.0f/s; container/floor %.2f%n", MESSAGES, CONCURRENCY,
				container[0], container[1], container[2], container[3], floor, container[0] / floor);
	}

	/** @return deliveries per second, lateness p50, p99 and max in ms */
	private double[] drain(String name, int count) throws Exception {
		RedisQueue<Integer> queue = this.registry.create(name, QueueTesting.fastSpec()
			.withVisibilityTimeout(Duration.ofSeconds(30)), Integer.class);
		Instant due = Instant.now().plusMillis(1500);
		List<QueueEntry<Integer>> entries = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			entries.add(QueueEntry.of(i).withDueAt(due));
			if (entries.size() == 5000) {
				queue.enqueueAll(entries);
				entries.clear();
			}
		}
		if (!entries.isEmpty()) {
			queue.enqueueAll(entries);
		}
		long[] lateness = new long[count];
		AtomicInteger received = new AtomicInteger();
		Set<Integer> seen = ConcurrentHashMap.newKeySet();
		CountDownLatch done = new CountDownLatch(count);
		QueueListenerContainer<Integer> container = this.registry.createContainer(queue, (message) -> {
			long late = System.currentTimeMillis() - message.dueAt().toEpochMilli();
			lateness[received.getAndIncrement() % count] = late;
			if (seen.add(message.payload())) {
				done.countDown();
			}
		}, CONCURRENCY);
		container.start();
		try {
			assertThat(done.await(120, TimeUnit.SECONDS)).isTrue();
			long last = System.currentTimeMillis();
			long first = due.toEpochMilli();
			Arrays.sort(lateness);
			QueueListenerContainerTests.awaitTrue(() -> queue.stats().total() == 0, Duration.ofSeconds(30));
			assertThat(received.get()).isEqualTo(count);
			return new double[] { count * 1000.0 / Math.max(1, last - first), lateness[count / 2],
					lateness[(int) (count * 0.99)], lateness[count - 1] };
		}
		finally {
			container.stop();
		}
	}

	/** The claim and ack scripts alone, claims of the container's size, acks sent together: per second. */
	private double floor(String name, int count) {
		RedisQueue<Integer> queue = this.registry.create(name + "-floor", QueueTesting.fastSpec(), Integer.class);
		List<QueueEntry<Integer>> entries = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			entries.add(QueueEntry.of(i));
			if (entries.size() == 5000) {
				queue.enqueueAll(entries);
				entries.clear();
			}
		}
		if (!entries.isEmpty()) {
			queue.enqueueAll(entries);
		}
		ScriptedRedisQueue<Integer> scripted = (ScriptedRedisQueue<Integer>) queue;
		QueueScripts scripts = scripted.parts().scripts;
		QueueScripts.Keys keys = scripted.keys();
		int taken = 0;
		long start = System.nanoTime();
		while (taken < count) {
			Stages.join(scripts.promote(keys, null));
			Claimed claimed = Stages.join(scripts.claim(keys, scripted.parts().newRequestId(), CONCURRENCY, 30_000,
					null));
			List<CompletableFuture<?>> acks = new ArrayList<>();
			for (ClaimedMessage message : claimed.messages()) {
				acks.add(scripts.ack(keys, message.id(), message.token(), null).toCompletableFuture());
			}
			CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
			taken += claimed.messages().size();
		}
		return count / ((System.nanoTime() - start) / 1e9);
	}

}
