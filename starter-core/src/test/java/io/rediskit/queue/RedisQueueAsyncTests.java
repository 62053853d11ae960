package io.rediskit.queue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** {@link RedisQueue}'s asynchronous API: the same outcomes without blocking. */
class RedisQueueAsyncTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	QueueRegistry registry;

	RedisQueue<Job> queue;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = QueueTesting.registry(redis);
		this.queue = this.registry.create("jobs", QueueTesting.fastSpec()
			.withVisibilityTimeout(Duration.ofMillis(400)), Job.class);
	}

	@AfterEach
	void tearDown() {
		this.registry.close();
	}

	@Test
	void enqueuePollAndSettleWithoutBlocking() throws Exception {
		String id = join(this.queue.enqueueAsync(QueueEntry.of(new Job("a", 1))));
		List<String> batch = join(this.queue.enqueueAllAsync(List.of(QueueEntry.of(new Job("b", 2)),
				QueueEntry.of(new Job("c", 3)).withDelay(Duration.ofMinutes(1)))));
		assertThat(batch).hasSize(2);
		assertThat(join(this.queue.cancelAsync(batch.get(1)))).isTrue();
		List<QueueMessage<Job>> messages = join(this.queue.pollAsync(10));
		assertThat(messages).extracting(QueueMessage::id).containsExactly(id, batch.get(0));
		join(messages.get(0).extendVisibilityAsync(Duration.ofSeconds(30)));
		join(messages.get(0).ackAsync());
		join(messages.get(1).retryAsync(Duration.ZERO, "again"));
		QueueMessage<Job> again = this.queue.poll(1, Duration.ofSeconds(5)).get(0);
		assertThat(again.deliveryCount()).isEqualTo(2);
		join(again.deadLetterAsync("no"));
		assertThat(join(this.queue.statsAsync())).isEqualTo(new QueueStats(0, 0, 0, 1, Duration.ZERO));
	}

	@Test
	void aStaleAsyncAckCompletesExceptionally() throws Exception {
		this.queue.enqueue(new Job("s", 1));
		QueueMessage<Job> first = join(this.queue.pollAsync(1)).get(0);
		QueueMessage<Job> second = this.queue.poll(1, Duration.ofSeconds(10)).get(0);
		assertThatExceptionOfType(CompletionException.class).isThrownBy(() -> join(first.ackAsync()))
			.withCauseInstanceOf(StaleDeliveryException.class);
		join(second.ackAsync());
	}

	@Test
	void invalidArgumentsThrowAtOnce() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.pollAsync(0));
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.pollAsync(1001));
		assertThatExceptionOfType(PayloadTooLargeException.class).isThrownBy(() -> this.registry
			.create("small", QueueTesting.fastSpec().withMaxPayloadSize(10), String.class)
			.enqueueAsync(QueueEntry.of("more than ten bytes")));
	}

	private static <V> V join(java.util.concurrent.CompletionStage<V> stage) throws Exception {
		try {
			return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
		}
		catch (java.util.concurrent.ExecutionException ex) {
			throw new CompletionException(ex.getCause());
		}
	}

}
