package io.rediskit.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.queue.QueueListenerContainerTests.CountingScripts;
import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.queue.QueueTesting.Recorder;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static io.rediskit.queue.QueueListenerContainerTests.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The ack linger of {@link QueueListenerContainer}: a finished delivery's ack held while others the container took
 * are still running, sent with theirs in one script call; flushed by a stop; failed with the call that carried it.
 */
class QueueAckLingerTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final String IN_FLIGHT = "rk:queue:{jobs}:in-flight";

	Recorder recorder = new Recorder();

	/** Operations whose settling call failed (an outage or a script error), as the listeners are told. */
	List<String> settleFailures = Collections.synchronizedList(new ArrayList<>());

	CountingScripts counting = new CountingScripts(redis.scripts());

	QueueRegistry registry;

	List<QueueListenerContainer<?>> containers = new ArrayList<>();

	@BeforeEach
	void setUp() {
		redis.flushAll();
		QueueEventListener failures = new QueueEventListener() {

			@Override
			public void onSettleFailed(String queue, String operation) {
				QueueAckLingerTests.this.settleFailures.add(operation);
			}

		};
		this.registry = new QueueRegistry(this.counting, redis.connections(), KeyNaming.defaults(),
				JsonMapper.builder().build(), List.of(this.recorder, failures), (name) -> null);
	}

	@AfterEach
	void tearDown() {
		this.containers.forEach(QueueListenerContainer::stop);
		this.registry.close();
	}

	@Test
	void aClaimOfQuickHandlersIsAckedInOneCall() throws Exception {
		RedisQueue<Job> queue = this.registry.create("jobs", spec(), Job.class);
		enqueue(queue, 20);
		Set<Integer> seen = ConcurrentHashMap.newKeySet();
		// Concurrency 4 and the default prefetch of 16: one claim takes the 20.
		QueueListenerContainer<Job> container = container(queue, (message) -> seen.add(message.payload().number()), 4);
		container.setAckLinger(Duration.ofSeconds(1));
		container.start();
		awaitTrue(() -> seen.size() == 20 && acked() == 20, Duration.ofSeconds(30));
		assertThat(this.counting.claimMaxima()).first().isEqualTo(20);
		// Held while the others of the claim ran, then sent with the last: one call where the floor makes one.
		assertThat(this.counting.calls(QueueScripts.ACK_MANY)).isEqualTo(1);
		assertThat(this.counting.calls(QueueScripts.ACK)).isZero();
		assertThat(redis.server().command("ZCARD", IN_FLIGHT)).isEqualTo(0L);
	}

	@Test
	void theNextClaimOfABurstIsSentBehindTheLastAckWithoutWaitingForItsReply() throws Exception {
		RedisQueue<Job> queue = this.registry.create("jobs", spec(), Job.class);
		enqueue(queue, 400);
		Queue<Integer> seen = new ConcurrentLinkedQueue<>();
		// Concurrency 4 and the default prefetch of 16: twenty claims of 20, each acked in one call.
		QueueListenerContainer<Job> container = container(queue, (message) -> seen.add(message.payload().number()), 4);
		container.setAckLinger(Duration.ofSeconds(1));
		container.start();
		awaitTrue(() -> seen.size() >= 400 && acked() >= 400, Duration.ofSeconds(30));
		assertThat(seen).doesNotHaveDuplicates().hasSize(400);
		// Once the last of a claim finished, its ack and the next claim leave together: the claim is written
		// behind the ack, before the ack's reply (before, it waited for that reply: none was).
		assertThat(this.counting.claimsBehindAcks()).isPositive();
		assertThat(redis.server().command("ZCARD", IN_FLIGHT)).isEqualTo(0L);
	}

	@Test
	void withoutALingerTheFirstFinishedAckOfAClaimGoesAlone() throws Exception {
		RedisQueue<Job> queue = this.registry.create("jobs", spec(), Job.class);
		enqueue(queue, 20);
		Set<Integer> seen = ConcurrentHashMap.newKeySet();
		QueueListenerContainer<Job> container = container(queue, (message) -> seen.add(message.payload().number()), 4);
		container.setAckLinger(Duration.ZERO);
		container.start();
		awaitTrue(() -> seen.size() == 20 && acked() == 20, Duration.ofSeconds(30));
		// Nothing on the wire when the first finishes: it goes at once, alone, and the rest after it.
		assertThat(this.counting.calls(QueueScripts.ACK_MANY)).isGreaterThanOrEqualTo(2);
	}

	@Test
	void aStopSendsTheHeldAcksAtOnceSoNothingIsDeliveredAgain() throws Exception {
		RedisQueue<Job> queue = this.registry.create("jobs", spec(), Job.class);
		CountDownLatch started = new CountDownLatch(5);
		CountDownLatch go = new CountDownLatch(1);
		CountDownLatch blocker = new CountDownLatch(1);
		AtomicInteger handled = new AtomicInteger();
		FreezableScheduler scheduler = new FreezableScheduler();
		try {
			QueueListenerContainer<Job> container = container(queue, (message) -> {
				started.countDown();
				(message.payload().number() == 0 ? blocker : go).await(30, TimeUnit.SECONDS);
				handled.incrementAndGet();
			}, 5);
			container.setTaskScheduler(scheduler);
			container.setAckLinger(Duration.ofSeconds(1));
			container.setShutdownTimeout(Duration.ofSeconds(30));
			enqueue(queue, 5);
			container.start();
			assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
			// From here the linger's deadline never fires (as when the application's scheduler stopped first): only
			// the last handler to finish, or the stop, can send the held acks.
			scheduler.frozen = true;
			go.countDown();
			ScriptedRedisQueue<Job> scripted = (ScriptedRedisQueue<Job>) queue;
			AckBatcher acks = scripted.state().ackBatcher(scripted.parts().scripts);
			awaitTrue(() -> acks.waiting() == 4, Duration.ofSeconds(30));
			assertThat(redis.server().command("ZCARD", IN_FLIGHT)).as("held, not sent").isEqualTo(5L);
			CountDownLatch stopped = new CountDownLatch(1);
			container.stop(stopped::countDown);
			// The blocked handler still runs: the stop sent the four held acks.
			awaitTrue(() -> Long.valueOf(1).equals(redis.server().command("ZCARD", IN_FLIGHT)), Duration.ofSeconds(30));
			assertThat(stopped.getCount()).isEqualTo(1);
			blocker.countDown();
			assertThat(stopped.await(30, TimeUnit.SECONDS)).as("stopped").isTrue();
			assertThat(redis.server().command("ZCARD", IN_FLIGHT)).isEqualTo(0L);
			assertThat(queue.stats().total()).isZero();
			assertThat(handled.get()).isEqualTo(5);
			assertThat(acked()).isEqualTo(5);
			assertThat(this.recorder.events).doesNotContain("delivered 2");
		}
		finally {
			go.countDown();
			blocker.countDown();
			scheduler.delegate.shutdown();
		}
	}

	@Test
	void aFailedAckCallFailsEveryAckItCarried() throws Exception {
		RedisQueue<Job> queue = this.registry.create("jobs", spec(), Job.class);
		CountDownLatch started = new CountDownLatch(5);
		CountDownLatch go = new CountDownLatch(1);
		try {
			QueueListenerContainer<Job> container = container(queue, (message) -> {
				started.countDown();
				go.await(30, TimeUnit.SECONDS);
			}, 5);
			container.setAckLinger(Duration.ofSeconds(1));
			enqueue(queue, 5);
			container.start();
			assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
			// ack_many.lua reads the reasons hash when it exists: a string there fails the whole call (WRONGTYPE).
			redis.server().command("SET", "rk:queue:{jobs}:reasons", "not a hash");
			go.countDown();
			awaitTrue(() -> this.settleFailures.size() == 5, Duration.ofSeconds(30));
			assertThat(this.settleFailures).containsOnly("ack");
			assertThat(this.counting.calls(QueueScripts.ACK_MANY)).as("four held, sent with the last").isEqualTo(1);
			assertThat(acked()).isZero();
			// Not acked: each comes back after the visibility timeout.
			assertThat(redis.server().command("ZCARD", IN_FLIGHT)).isEqualTo(5L);
		}
		finally {
			go.countDown();
			redis.server().command("DEL", "rk:queue:{jobs}:reasons");
		}
	}

	@Test
	void theLingerIsAtMostATenthOfTheVisibilityTimeout() {
		RedisQueue<Job> queue = this.registry.create("jobs", spec().withVisibilityTimeout(Duration.ofSeconds(1)),
				Job.class);
		QueueListenerContainer<Job> container = this.registry.createContainer(queue, (message) -> {
		}, 1);
		container.setAckLinger(Duration.ofMillis(100));
		assertThat(container.getAckLinger()).isEqualTo(Duration.ofMillis(100));
		assertThatIllegalArgumentException().isThrownBy(() -> container.setAckLinger(Duration.ofMillis(101)))
			.withMessage("ackLinger must be between 0 and 100ms (a tenth of the visibility timeout of queue 'jobs', "
					+ "1000ms, and at most 1000ms), was 101ms");
		assertThatIllegalArgumentException().isThrownBy(() -> container.setAckLinger(Duration.ofMillis(-1)));
	}

	private long acked() {
		return this.recorder.events.stream().filter("acked"::equals).count();
	}

	private static QueueSpec spec() {
		return QueueTesting.fastSpec().withVisibilityTimeout(Duration.ofSeconds(30));
	}

	private static void enqueue(RedisQueue<Job> queue, int count) {
		List<QueueEntry<Job>> entries = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			entries.add(QueueEntry.of(new Job("j", i)));
		}
		queue.enqueueAll(entries);
	}

	private QueueListenerContainer<Job> container(RedisQueue<Job> queue, QueueHandler<Job> handler, int concurrency) {
		QueueListenerContainer<Job> container = this.registry.createContainer(queue, handler, concurrency);
		this.containers.add(container);
		return container;
	}

	/** A scheduler whose one-off tasks are dropped once frozen (periodic ones go on). */
	static final class FreezableScheduler implements TaskScheduler {

		final ThreadPoolTaskScheduler delegate = new ThreadPoolTaskScheduler();

		volatile boolean frozen;

		FreezableScheduler() {
			this.delegate.initialize();
		}

		@Override
		public ScheduledFuture<?> schedule(Runnable task, Instant startTime) {
			if (this.frozen) {
				return this.delegate.schedule(() -> {
				}, Instant.now().plus(Duration.ofDays(1)));
			}
			return this.delegate.schedule(task, startTime);
		}

		@Override
		public ScheduledFuture<?> schedule(Runnable task, Trigger trigger) {
			return this.delegate.schedule(task, trigger);
		}

		@Override
		public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Instant startTime, Duration period) {
			return this.delegate.scheduleAtFixedRate(task, startTime, period);
		}

		@Override
		public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration period) {
			return this.delegate.scheduleAtFixedRate(task, period);
		}

		@Override
		public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Instant startTime, Duration delay) {
			return this.delegate.scheduleWithFixedDelay(task, startTime, delay);
		}

		@Override
		public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Duration delay) {
			return this.delegate.scheduleWithFixedDelay(task, delay);
		}

	}

}
