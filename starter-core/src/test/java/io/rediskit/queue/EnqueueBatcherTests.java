package io.rediskit.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Single enqueues from concurrent producers share script calls: every message is added exactly once, each caller
 * gets its own id, and a caller-chosen id enqueued concurrently by many callers is held once.
 */
class EnqueueBatcherTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	private final QueueRegistry registry = QueueTesting.registry(redis);

	@AfterEach
	void close() {
		this.registry.close();
	}

	@Test
	void concurrentSingleEnqueuesAreEachAddedOnce() throws Exception {
		RedisQueue<Job> queue = this.registry.create("batched", QueueTesting.fastSpec(), Job.class);
		Set<String> ids = ConcurrentHashMap.newKeySet();
		int threads = 8;
		int each = 500;
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> producers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int thread = t;
			Thread producer = new Thread(() -> {
				try {
					start.await();
				}
				catch (InterruptedException ex) {
					return;
				}
				for (int n = 0; n < each; n++) {
					ids.add(queue.enqueue(new Job("t" + thread, n), Duration.ofHours(1)));
					queue.enqueue(QueueEntry.of(new Job("same", n)).withId("shared-" + n)
						.withDelay(Duration.ofHours(1)));
				}
			});
			producers.add(producer);
			producer.start();
		}
		start.countDown();
		for (Thread producer : producers) {
			producer.join();
		}
		assertThat(ids).hasSize(threads * each);
		assertThat(queue.stats().delayed()).isEqualTo(threads * each + each);
	}

}
