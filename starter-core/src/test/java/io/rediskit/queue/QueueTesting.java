package io.rediskit.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/** Payloads, specs and a recording listener for the queue tests. */
final class QueueTesting {

	private QueueTesting() {
	}

	/** A payload. */
	record Job(String name, int number) {
	}

	/** A spec for tests: short timeouts, no jitter. */
	static QueueSpec fastSpec() {
		return QueueSpec.defaults()
			.withVisibilityTimeout(Duration.ofSeconds(5))
			.withBackoff(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, 0.0)
			.withPollInterval(Duration.ofMillis(200));
	}

	/** Claims {@code count} messages, waiting for them at most 30 s, and asserts they came. */
	static <T> List<QueueMessage<T>> claim(RedisQueue<T> queue, int count) throws InterruptedException {
		List<QueueMessage<T>> claimed = new ArrayList<>();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (claimed.size() < count && System.nanoTime() < deadline) {
			claimed.addAll(queue.poll(count - claimed.size(), Duration.ofSeconds(1)));
		}
		assertThat(claimed).hasSize(count);
		return claimed;
	}

	static QueueRegistry registry(RedisTestServer redis, QueueEventListener... listeners) {
		return new QueueRegistry(redis.scripts(), redis.connections(), KeyNaming.defaults(),
				JsonMapper.builder().build(), List.of(listeners), (name) -> null);
	}

	/** Records every event, for assertions. */
	static final class Recorder implements QueueEventListener {

		final Queue<String> events = new ConcurrentLinkedQueue<>();

		final Queue<Duration> lateness = new ConcurrentLinkedQueue<>();

		@Override
		public void onEnqueued(String queue, int count) {
			this.events.add("enqueued " + count);
		}

		@Override
		public void onDelivered(String queue, int deliveries, Duration lateness) {
			this.events.add("delivered " + deliveries);
			if (deliveries == 1) {
				this.lateness.add(lateness);
			}
		}

		@Override
		public void onAcked(String queue, Duration processing) {
			this.events.add("acked");
		}

		@Override
		public void onRetried(String queue, Duration delay) {
			this.events.add("retried " + delay.toMillis());
		}

		@Override
		public void onDeadLettered(String queue, String reason) {
			this.events.add("dead " + reason);
		}

		@Override
		public void onCancelled(String queue) {
			this.events.add("cancelled");
		}

		@Override
		public void onExpired(String queue) {
			this.events.add("expired");
		}

		@Override
		public void onHeldBack(String queue, String reason, long count) {
			this.events.add("held-back " + reason + " " + count);
		}

		@Override
		public void onDeduplicated(String queue, EnqueueResult.Outcome outcome, int count) {
			this.events.add(outcome.value() + " " + count);
		}

		@Override
		public void onStale(String queue, String operation) {
			this.events.add("stale " + operation);
		}

		@Override
		public void onFlowParentReleased(String queue, QueueFlow.ParentRelease release) {
			this.events.add("parent " + release.value());
		}

		@Override
		public void onBatchEvent(String queue, QueueBatch.Event event) {
			this.events.add("batch " + event.value());
		}

	}

}
