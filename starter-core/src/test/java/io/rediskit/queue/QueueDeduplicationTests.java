package io.rediskit.queue;

import java.time.Duration;
import java.util.List;

import io.rediskit.queue.EnqueueResult.Outcome;
import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.queue.QueueTesting.Recorder;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Unique jobs through {@link RedisQueue}'s API, sync and async: the queue's default and an entry's own
 * deduplication, what the caller and the listeners are told, and the ids of the messages added.
 */
class QueueDeduplicationTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final Recorder recorder = new Recorder();

	QueueRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = QueueTesting.registry(redis, this.recorder);
	}

	@AfterEach
	void tearDown() {
		this.registry.close();
	}

	@Test
	void theQueueDefaultIsUntilFinishedAndEnqueueStillAnswersTheId() {
		RedisQueue<Job> queue = this.registry.create("plain", QueueTesting.fastSpec(), Job.class);
		assertThat(queue.spec().deduplication()).isEqualTo(Deduplication.UNTIL_FINISHED);
		QueueEntry<Job> entry = QueueEntry.of(new Job("a", 1)).withId("a");
		assertThat(queue.tryEnqueue(entry)).isEqualTo(new EnqueueResult("a", Outcome.ENQUEUED));
		assertThat(queue.enqueue(entry)).isEqualTo("a");
		assertThat(queue.tryEnqueueAsync(entry).toCompletableFuture().join())
			.isEqualTo(new EnqueueResult("a", Outcome.DUPLICATE));
		assertThat(this.recorder.events).containsExactly("enqueued 1", "duplicate 1", "duplicate 1");
	}

	@Test
	void anEntrysOwnDeduplicationWinsOverTheQueues() throws Exception {
		RedisQueue<Job> queue = this.registry.create("started",
				QueueTesting.fastSpec().withDeduplication(Deduplication.UNTIL_STARTED), Job.class);
		queue.enqueue(QueueEntry.of(new Job("a", 1)).withId("a"));
		QueueMessage<Job> running = queue.poll(1, Duration.ofSeconds(5)).get(0);
		EnqueueResult second = queue.tryEnqueue(QueueEntry.of(new Job("a", 2)).withId("a"));
		assertThat(second.outcome()).isEqualTo(Outcome.ENQUEUED);
		assertThat(second.id()).startsWith("a~");
		assertThat(queue.tryEnqueue(QueueEntry.of(new Job("a", 3)).withId("a")
			.withDeduplication(Deduplication.UNTIL_FINISHED)).outcome()).isEqualTo(Outcome.DUPLICATE);
		running.ack();
		QueueMessage<Job> next = queue.poll(1, Duration.ofSeconds(5)).get(0);
		assertThat(next.id()).isEqualTo(second.id());
		assertThat(next.payload()).isEqualTo(new Job("a", 2));
		next.ack();
	}

	@Test
	void debounceAndThrottleAreToldToTheCallerAndTheListeners() {
		RedisQueue<Job> queue = this.registry.create("windows", QueueTesting.fastSpec(), Job.class);
		Deduplication debounce = Deduplication.debounce(Duration.ofHours(1));
		QueueEntry<Job> entry = QueueEntry.of(new Job("d", 1)).withId("d").withDelay(Duration.ofHours(1))
			.withDeduplication(debounce);
		List<String> ids = queue.enqueueAll(List.of(entry, entry.withHeader("x", "y"),
				QueueEntry.of(new Job("t", 1)).withId("t").withDeduplication(Deduplication.throttle(Duration.ofHours(1))),
				QueueEntry.of(new Job("t", 2)).withId("t").withDeduplication(Deduplication.throttle(Duration.ofHours(1)))));
		assertThat(ids).containsExactly("d", "d", "t", "t");
		assertThat(queue.tryEnqueue(entry)).isEqualTo(new EnqueueResult("d", Outcome.REPLACED));
		assertThat(this.recorder.events).containsExactly("enqueued 2", "duplicate 1", "replaced 1", "replaced 1");
		assertThat(queue.stats().total()).isEqualTo(2);
	}

	@Test
	void aWindowIsRequiredExactlyForThrottleAndDebounce() {
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> Deduplication.throttle(Duration.ZERO))
			.withMessageContaining("window");
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> new Deduplication(Deduplication.Mode.UNTIL_STARTED, Duration.ofSeconds(1)));
		assertThat(Deduplication.debounce(Duration.ofMillis(1)).window()).isEqualTo(Duration.ofMillis(1));
	}

}
