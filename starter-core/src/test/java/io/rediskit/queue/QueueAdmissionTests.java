package io.rediskit.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.queue.QueueTesting.Recorder;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.rediskit.queue.QueueListenerContainerTests.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pause, the in-flight limit and the rate limit across two "instances" (two registries, each with its own
 * container, sharing one server), checked independently of the queue: by the claim times every delivery carries
 * (the server's clock), by the handlers' own count of what runs, and by sampling the in-flight set.
 */
class QueueAdmissionTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final List<QueueRegistry> registries = new ArrayList<>();

	final List<QueueListenerContainer<?>> containers = new ArrayList<>();

	@BeforeEach
	void setUp() {
		redis.flushAll();
	}

	@AfterEach
	void tearDown() {
		this.containers.forEach(QueueListenerContainer::stop);
		this.registries.forEach(QueueRegistry::close);
	}

	@Test
	void whilePausedNoInstanceStartsADeliveryAndThePauseOutlivesARestart() throws Exception {
		QueueSpec spec = QueueTesting.fastSpec().withPollInterval(Duration.ofMillis(100));
		Queue<QueueMessage<Job>> delivered = new ConcurrentLinkedQueue<>();
		RedisQueue<Job> first = instance(spec, delivered::add, 4);
		RedisQueue<Job> second = instance(spec, delivered::add, 4);
		enqueue(first, 0, 50);
		awaitTrue(() -> delivered.size() == 50, Duration.ofSeconds(20));

		first.pause();
		long pausedAt = QueueScriptsTests.await(((ScriptedRedisQueue<Job>) first).parts().scripts
			.paused(((ScriptedRedisQueue<Job>) first).keys(), QueueScripts.QUEUE_PAUSE));
		assertThat(second.isPaused()).isTrue();
		long scriptsBefore = evalshaCalls();
		// A third instance started while paused (a restart) claims nothing either.
		RedisQueue<Job> third = instance(spec, delivered::add, 4);
		assertThat(third.isPaused()).isTrue();
		// Paced over a second, so that each enqueue's wake-up reaches the paused containers on its own.
		long pacing = System.nanoTime();
		for (int i = 50; i < 100; i++) {
			second.enqueue(new Job("j", i));
			Thread.sleep(20);
		}
		assertThat(delivered).hasSize(50);
		assertThat(first.stats().ready()).isEqualTo(50);
		// Three containers polling every 100 ms: per poll interval 3 polls of at most 3 scripts, plus 50 enqueues.
		// Claiming on each wake-up would cost 50 x 3 promotes and claims more (measured: 384 calls instead of 150).
		long intervals = Duration.ofNanos(System.nanoTime() - pacing).toMillis() / 100 + 5;
		assertThat(evalshaCalls() - scriptsBefore).isLessThan(50 + intervals * 3 * 3);

		third.resume();
		assertThat(first.isPaused()).isFalse();
		awaitTrue(() -> delivered.size() == 100, Duration.ofSeconds(20));
		long resumed = delivered.stream().filter((m) -> m.payload().number() >= 50).mapToLong(
				(m) -> m.deliveredAt().toEpochMilli()).min().orElseThrow();
		assertThat(resumed).isGreaterThan(pausedAt);
		for (QueueMessage<Job> message : delivered) {
			// Every delivery was claimed before the pause or after the resume.
			boolean before = message.deliveredAt().toEpochMilli() <= pausedAt;
			assertThat(before || message.payload().number() >= 50).as(message.toString()).isTrue();
			assertThat(message.deliveryCount()).isEqualTo(1);
		}
	}

	@Test
	void aListenerPausedOnItsOwnStopsOnEveryInstanceWhileTheOthersGoOn() throws Exception {
		QueueSpec spec = QueueTesting.fastSpec().withPollInterval(Duration.ofMillis(100));
		Queue<String> handled = new ConcurrentLinkedQueue<>();
		List<QueueListenerContainer<Job>> mails = new ArrayList<>();
		RedisQueue<Job> queue = null;
		for (int i = 0; i < 2; i++) {
			QueueRegistry registry = registry();
			queue = registry.create("jobs", spec, Job.class);
			QueueListenerContainer<Job> container = registry.createContainer(queue,
					(m) -> handled.add("send:" + m.id()), 2);
			container.setListenerId("mails.send");
			mails.add(container);
			this.containers.add(container);
			container.start();
		}
		mails.get(0).pause();
		assertThat(mails.get(1).isPaused()).isTrue();
		assertThat(queue.isPaused()).as("the queue itself is not paused").isFalse();
		enqueue(queue, 0, 20);
		QueueRegistry other = registry();
		QueueListenerContainer<Job> audit = other.createContainer(other.create("jobs", spec, Job.class),
				(m) -> handled.add("audit:" + m.id()), 2);
		audit.setListenerId("mails.audit");
		this.containers.add(audit);
		audit.start();
		awaitTrue(() -> handled.size() == 20, Duration.ofSeconds(20));
		assertThat(handled).allSatisfy((h) -> assertThat(h).startsWith("audit:"));
		// Resumed from the other instance; with the audit listener stopped, the mail listeners take the rest.
		audit.stop();
		mails.get(1).resume();
		assertThat(mails.get(0).isPaused()).isFalse();
		enqueue(queue, 20, 40);
		awaitTrue(() -> handled.size() == 60, Duration.ofSeconds(20));
		assertThat(handled.stream().filter((h) -> h.startsWith("send:"))).hasSize(40);
	}

	@Test
	void theInFlightLimitHoldsAcrossInstancesAndBurnsNoRetry() throws Exception {
		QueueSpec spec = QueueTesting.fastSpec().withMaxInFlight(3);
		AtomicInteger running = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		Queue<QueueMessage<Job>> delivered = new ConcurrentLinkedQueue<>();
		QueueHandler<Job> slow = (message) -> {
			most.accumulateAndGet(running.incrementAndGet(), Math::max);
			Thread.sleep(30);
			running.decrementAndGet();
			delivered.add(message);
		};
		RedisQueue<Job> queue = instance(spec, slow, 4);
		instance(spec, slow, 4);
		AtomicBoolean sampling = new AtomicBoolean(true);
		AtomicInteger mostInFlight = new AtomicInteger();
		Thread sampler = new Thread(() -> {
			while (sampling.get()) {
				long inFlight = (Long) redis.server().command("ZCARD", "rk:queue:{jobs}:in-flight");
				mostInFlight.accumulateAndGet((int) inFlight, Math::max);
			}
		});
		sampler.start();
		queue.enqueueAll(entries(0, 60));
		awaitTrue(() -> delivered.size() == 60, Duration.ofSeconds(30));
		sampling.set(false);
		sampler.join();
		assertThat(most.get()).as("handlers running at once").isEqualTo(3);
		assertThat(mostInFlight.get()).as("sampled in flight").isBetween(1, 3);
		assertThat(delivered).allSatisfy((m) -> assertThat(m.deliveryCount()).isEqualTo(1));
	}

	@Test
	void theRateLimitHoldsInEveryWindowAcrossInstancesAndBurnsNoRetry() throws Exception {
		Duration period = Duration.ofMillis(500);
		QueueSpec spec = QueueTesting.fastSpec().withRateLimit(20, period);
		Recorder recorder = new Recorder();
		Queue<QueueMessage<Job>> delivered = new ConcurrentLinkedQueue<>();
		RedisQueue<Job> queue = instance(spec, delivered::add, 4, recorder);
		instance(spec, delivered::add, 4, recorder);
		queue.enqueueAll(entries(0, 90));
		awaitTrue(() -> delivered.size() == 90, Duration.ofSeconds(30));
		long[] times = delivered.stream().mapToLong((m) -> m.deliveredAt().toEpochMilli()).sorted().toArray();
		int most = 0;
		for (int i = 0, j = 0; i < times.length; i++) {
			while (times[j] <= times[i] - period.toMillis()) {
				j++;
			}
			most = Math.max(most, i - j + 1);
		}
		assertThat(most).as("deliveries in the busiest window of " + period).isEqualTo(20);
		assertThat(times[times.length - 1] - times[0]).as("90 at 20 per 500 ms take four windows at least")
			.isGreaterThanOrEqualTo(4 * period.toMillis());
		assertThat(delivered).allSatisfy((m) -> assertThat(m.deliveryCount()).isEqualTo(1));
		assertThat(recorder.events).anyMatch((e) -> e.startsWith("held-back rate-limit"));
	}

	private RedisQueue<Job> instance(QueueSpec spec, QueueHandler<Job> handler, int concurrency,
			QueueEventListener... listeners) {
		QueueRegistry registry = registry(listeners);
		RedisQueue<Job> queue = registry.create("jobs", spec, Job.class);
		QueueListenerContainer<Job> container = registry.createContainer(queue, handler, concurrency);
		this.containers.add(container);
		container.start();
		return queue;
	}

	private QueueRegistry registry(QueueEventListener... listeners) {
		QueueRegistry registry = QueueTesting.registry(redis, listeners);
		this.registries.add(registry);
		return registry;
	}

	private static void enqueue(RedisQueue<Job> queue, int from, int count) {
		for (int i = from; i < from + count; i++) {
			queue.enqueue(new Job("j", i));
		}
	}

	private static List<QueueEntry<Job>> entries(int from, int count) {
		List<QueueEntry<Job>> entries = new ArrayList<>();
		for (int i = from; i < from + count; i++) {
			entries.add(QueueEntry.of(new Job("j", i)));
		}
		return entries;
	}

	private static long evalshaCalls() {
		String info = (String) redis.server().command("INFO", "commandstats");
		for (String line : info.split("\r\n")) {
			if (line.startsWith("cmdstat_evalsha:")) {
				return Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
			}
		}
		return 0;
	}

}
