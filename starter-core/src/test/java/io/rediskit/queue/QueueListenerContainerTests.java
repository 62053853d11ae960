package io.rediskit.queue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.queue.QueueTesting.Recorder;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.LuaScript;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.ReplicaWait;
import io.rediskit.support.ScriptExecutor;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.ReturnType;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link QueueListenerContainer}: concurrency, acks, retries, dead letters, visibility, wake-ups, stopping. */
class QueueListenerContainerTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	Recorder recorder = new Recorder();

	QueueRegistry registry;

	List<QueueListenerContainer<?>> containers = new ArrayList<>();

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = QueueTesting.registry(redis, this.recorder);
	}

	@AfterEach
	void tearDown() {
		this.containers.forEach(QueueListenerContainer::stop);
		this.registry.close();
	}

	@Test
	void processesEveryMessageWithTheConfiguredConcurrency() throws Exception {
		RedisQueue<Job> queue = this.registry.create("jobs", QueueTesting.fastSpec(), Job.class);
		Set<Integer> seen = ConcurrentHashMap.newKeySet();
		AtomicInteger running = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		start(queue, (message) -> {
			most.accumulateAndGet(running.incrementAndGet(), Math::max);
			Thread.sleep(5);
			seen.add(message.payload().number());
			running.decrementAndGet();
		}, 4);
		List<QueueEntry<Job>> entries = new ArrayList<>();
		for (int i = 0; i < 300; i++) {
			entries.add(QueueEntry.of(new Job("c", i)));
		}
		queue.enqueueAll(entries);
		awaitTrue(() -> queue.stats().total() == 0, Duration.ofSeconds(30));
		assertThat(seen).hasSize(300);
		assertThat(most.get()).isBetween(2, 4);
	}

	@Test
	void workersStartedOneAfterAnotherReachTheConcurrencyWithHandlersThatBlockAndNeverExceedIt() throws Exception {
		// Each worker starts the next only once it took a message and saw more waiting: handlers that block must
		// still all run at once, as many as the concurrency and no more, whatever the machine's speed.
		RedisQueue<Job> queue = this.registry.create("jobs", QueueTesting.fastSpec(), Job.class);
		AtomicInteger running = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		CountDownLatch release = new CountDownLatch(1);
		Set<Integer> seen = ConcurrentHashMap.newKeySet();
		start(queue, (message) -> {
			most.accumulateAndGet(running.incrementAndGet(), Math::max);
			try {
				release.await(30, TimeUnit.SECONDS);
			}
			finally {
				running.decrementAndGet();
			}
			seen.add(message.payload().number());
		}, 6);
		List<QueueEntry<Job>> entries = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			entries.add(QueueEntry.of(new Job("blocked", i)));
		}
		queue.enqueueAll(entries);
		awaitTrue(() -> running.get() == 6, Duration.ofSeconds(20));
		release.countDown();
		awaitTrue(() -> queue.stats().total() == 0, Duration.ofSeconds(30));
		assertThat(seen).hasSize(20);
		assertThat(most.get()).isEqualTo(6);
	}

	@Test
	void aHandlerThatAlwaysThrowsFollowsTheBackoffThenDeadLettersWhileOtherMessagesFlow() throws Exception {
		RedisQueue<Job> queue = this.registry.create("jobs", QueueTesting.fastSpec().withMaxDeliveries(4)
			.withBackoff(Duration.ofMillis(200), Duration.ofSeconds(5), 2.0, 0.0), Job.class);
		Queue<Instant> poisonDeliveries = new ConcurrentLinkedQueue<>();
		Set<Integer> good = ConcurrentHashMap.newKeySet();
		start(queue, (message) -> {
			if (message.payload().name().equals("poison")) {
				poisonDeliveries.add(message.deliveredAt());
				throw new IllegalStateException("cannot process " + message.payload().number());
			}
			good.add(message.payload().number());
		}, 2);
		String poison = queue.enqueue(new Job("poison", 7));
		for (int i = 0; i < 50; i++) {
			queue.enqueue(new Job("good", i), Duration.ofMillis(i * 20L));
		}
		awaitTrue(() -> queue.stats().dead() == 1 && good.size() == 50, Duration.ofSeconds(30));
		List<Instant> times = new ArrayList<>(poisonDeliveries);
		assertThat(times).hasSize(4);
		// Backoff 200, 400, 800 ms between deliveries (server times; each gap at least the backoff).
		for (int i = 1; i < times.size(); i++) {
			long gap = Duration.between(times.get(i - 1), times.get(i)).toMillis();
			assertThat(gap).as("gap before delivery " + (i + 1)).isGreaterThanOrEqualTo(200L << (i - 1));
		}
		DeadLetter dead = queue.deadLetters(1).get(0);
		assertThat(dead.id()).isEqualTo(poison);
		assertThat(dead.deliveries()).isEqualTo(4);
		assertThat(dead.reason()).isEqualTo(
				"delivery 4 of 4 failed: java.lang.IllegalStateException: cannot process 7");
		assertThat(queue.stats().total()).isEqualTo(1);
	}

	@Test
	void longHandlersKeepTheirVisibilityExtended() throws Exception {
		RedisQueue<Job> queue = this.registry.create("jobs", QueueTesting.fastSpec()
			.withVisibilityTimeout(Duration.ofMillis(600)), Job.class);
		AtomicInteger calls = new AtomicInteger();
		start(queue, (message) -> {
			calls.incrementAndGet();
			Thread.sleep(2500);
		}, 1);
		queue.enqueue(new Job("long", 1));
		// The listener hears of the ack once its reply is read, which may be after the server shows the queue empty.
		awaitTrue(() -> calls.get() == 1 && queue.stats().total() == 0 && this.recorder.events.contains("acked"),
				Duration.ofSeconds(30));
		assertThat(calls.get()).isEqualTo(1);
		assertThat(this.recorder.events).doesNotContain("delivered 2");
	}

	@Test
	void stoppingGivesBackRunningAndUnstartedMessagesAtOnce() throws Exception {
		RedisQueue<Job> queue = this.registry.create("jobs", QueueTesting.fastSpec()
			.withVisibilityTimeout(Duration.ofMinutes(5)), Job.class);
		CountDownLatch started = new CountDownLatch(2);
		CountDownLatch never = new CountDownLatch(1);
		QueueListenerContainer<Job> container = start(queue, (message) -> {
			started.countDown();
			never.await();
		}, 2);
		container.setShutdownTimeout(Duration.ofMillis(300));
		for (int i = 0; i < 5; i++) {
			queue.enqueue(new Job("stuck", i));
		}
		assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
		long start = System.nanoTime();
		container.stop();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
		// Not after the 5 minute visibility timeout: at once, and uncounted.
		QueueStats stats = queue.stats();
		assertThat(stats.inFlight()).isZero();
		assertThat(stats.ready()).isEqualTo(5);
		List<QueueMessage<Job>> back = queue.poll(5, Duration.ZERO);
		assertThat(back).hasSize(5).allMatch((m) -> m.deliveryCount() == 1);
		never.countDown();
	}

	@Test
	void dueMessagesOfAQueueNobodyConsumedAreDeliveredPromptlyWhenAConsumerStarts() throws Exception {
		RedisQueue<Job> queue = this.registry.create("jobs", QueueTesting.fastSpec()
			.withPollInterval(Duration.ofSeconds(30)), Job.class);
		List<QueueEntry<Job>> entries = new ArrayList<>();
		for (int i = 0; i < 2000; i++) {
			entries.add(QueueEntry.of(new Job("due", i)).withDelay(Duration.ofMillis(200)));
		}
		queue.enqueueAll(entries);
		awaitTrue(() -> queue.stats().ready() == 2000, Duration.ofSeconds(10));
		Set<Integer> seen = ConcurrentHashMap.newKeySet();
		long start = System.nanoTime();
		start(queue, (message) -> seen.add(message.payload().number()), 8);
		awaitTrue(() -> seen.size() == 2000, Duration.ofSeconds(30));
		// Far less than the 30 s poll interval: the consumer claims what is due as it starts.
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(25));
		awaitTrue(() -> queue.stats().total() == 0, Duration.ofSeconds(10));
	}

	@Test
	void withNotificationsLostThePollStillDeliversWithinThePollInterval() throws Exception {
		Duration poll = Duration.ofMillis(500);
		RedisQueue<Job> queue = this.registry.create("jobs", QueueTesting.fastSpec().withPollInterval(poll),
				Job.class);
		Map<Integer, Long> lateness = new ConcurrentHashMap<>();
		start(queue, (message) -> lateness.put(message.payload().number(),
				Duration.between(message.dueAt(), message.deliveredAt()).toMillis()), 2);
		Thread.sleep(300);
		// Cut the subscription, and keep cutting it while messages come due.
		for (int i = 0; i < 10; i++) {
			redis.server().command("CLIENT", "KILL", "TYPE", "pubsub");
			queue.enqueue(new Job("n", i));
			Thread.sleep(150);
		}
		awaitTrue(() -> lateness.size() == 10, Duration.ofSeconds(30));
		// Lateness is bounded by the poll interval (plus a round trip on a loaded machine).
		assertThat(lateness.values()).allMatch((ms) -> ms <= poll.toMillis() + 1000, "at most poll + 1 s");
	}

	@Test
	void aDelayedMessageIsDeliveredByTheTimerNotThePoll() throws Exception {
		RedisQueue<Job> queue = this.registry.create("jobs", QueueTesting.fastSpec()
			.withPollInterval(Duration.ofMinutes(1)), Job.class);
		Queue<Long> lateness = new ConcurrentLinkedQueue<>();
		start(queue, (message) -> lateness.add(Duration.between(message.dueAt(), message.deliveredAt()).toMillis()),
				1);
		Thread.sleep(300);
		for (int i = 0; i < 5; i++) {
			queue.enqueue(new Job("t", i), Duration.ofMillis(300 + i * 200L));
		}
		awaitTrue(() -> lateness.size() == 5, Duration.ofSeconds(30));
		// With a one-minute poll, only the timer (and the enqueue notifications) can deliver these in time.
		assertThat(lateness).allMatch((ms) -> ms < 5000);
	}

	@Test
	void claimsAheadOfTheFreeHandlersAndSendsTheAcksThatMeetAsOneCall() throws Exception {
		CountingScripts counting = new CountingScripts(redis.scripts());
		QueueRegistry counted = new QueueRegistry(counting, redis.connections(), KeyNaming.defaults(),
				JsonMapper.builder().build(), List.of(), (name) -> null);
		try {
			RedisQueue<Job> queue = counted.create("jobs", QueueTesting.fastSpec(), Job.class);
			int count = 400;
			List<QueueEntry<Job>> entries = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				entries.add(QueueEntry.of(new Job("b", i)));
			}
			queue.enqueueAll(entries);
			Set<Integer> seen = ConcurrentHashMap.newKeySet();
			QueueListenerContainer<Job> container = counted.createContainer(queue,
					(message) -> seen.add(message.payload().number()), 4);
			this.containers.add(container);
			container.start();
			awaitTrue(() -> queue.stats().total() == 0, Duration.ofSeconds(30));
			assertThat(seen).hasSize(count);
			// Claims of only the free handlers (4) would take at least 100 calls.
			assertThat(counting.calls(QueueScripts.CLAIM)).isLessThan(count / 4);
			assertThat(counting.calls(QueueScripts.ACK)).as("single acks").isZero();
			assertThat(counting.calls(QueueScripts.ACK_MANY)).isLessThan(count);
		}
		finally {
			this.containers.forEach(QueueListenerContainer::stop);
			this.containers.clear();
			counted.close();
		}
	}

	@Test
	void whileAcksAreOnTheWireItWaitsForTheirRoomInsteadOfClaimingAFewSlots() throws Exception {
		// The first ack of a burst went alone (before the ack linger; still so with a linger of 0); when it
		// returned, one slot was free and the buffer empty, and the container claimed that one message, then the
		// rest once the other acks returned: claims of 1 and 39 where the floor claims 40, each with its promote,
		// and each starting ack batches of its own.
		CountingScripts counting = new CountingScripts(redis.scripts());
		QueueRegistry counted = new QueueRegistry(counting, redis.connections(), KeyNaming.defaults(),
				JsonMapper.builder().build(), List.of(), (name) -> null);
		try {
			RedisQueue<Job> queue = counted.create("jobs", QueueTesting.fastSpec(), Job.class);
			int count = 2000;
			List<QueueEntry<Job>> entries = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				entries.add(QueueEntry.of(new Job("w", i)));
			}
			queue.enqueueAll(entries);
			Set<Integer> seen = ConcurrentHashMap.newKeySet();
			QueueListenerContainer<Job> container = counted.createContainer(queue,
					(message) -> seen.add(message.payload().number()), 8);
			this.containers.add(container);
			// Acks not held: the case this test is about, acks on the wire while others finish.
			container.setAckLinger(Duration.ZERO);
			container.start();
			awaitTrue(() -> queue.stats().total() == 0, Duration.ofSeconds(30));
			assertThat(seen).hasSize(count);
			int capacity = container.getConcurrency() + container.getPrefetch();
			List<Integer> asked = List.copyOf(counting.claimMaxima());
			// Only the poll interval's safety-net timer may still ask for what happens to be free.
			assertThat(asked.stream().filter((max) -> max * 2 < capacity))
				.as("claims asking for less than half of the capacity (%d), among %s", capacity, asked)
				.hasSizeLessThanOrEqualTo(2);
		}
		finally {
			this.containers.forEach(QueueListenerContainer::stop);
			this.containers.clear();
			counted.close();
		}
	}

	@Test
	void stopsAtOnceWhenTheSchedulerWasShutDownFirst() throws Exception {
		// Spring shuts the application's scheduler down when the context closes, before it stops the containers:
		// the poller's next timer then finds a scheduler that refuses tasks. It used to leave a poll marked under
		// way, so the stop waited for it until the lifecycle's 30 s timeout, with an ERROR logged.
		RedisQueue<Job> queue = this.registry.create("jobs", QueueTesting.fastSpec(), Job.class);
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.initialize();
		QueueListenerContainer<Job> container = this.registry.createContainer(queue, (message) -> {
		}, 1);
		container.setTaskScheduler(scheduler);
		container.start();
		queue.enqueue(new Job("e", 1));
		awaitTrue(() -> queue.stats().total() == 0, Duration.ofSeconds(30));
		// Idle now: a timer every poll interval (200 ms). Delayed tasks still run after shutdown(), so the
		// pending timer fires and its next poll is refused.
		scheduler.getScheduledThreadPoolExecutor().shutdown();
		assertThat(scheduler.getScheduledThreadPoolExecutor().awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		CountDownLatch stopped = new CountDownLatch(1);
		container.stop(stopped::countDown);
		assertThat(stopped.await(5, TimeUnit.SECONDS)).as("stopped").isTrue();
	}

	@Test
	void runsHandlersOnTheGivenExecutorAndPollsOnTheGivenScheduler() throws Exception {
		RedisQueue<Job> queue = this.registry.create("jobs", QueueTesting.fastSpec(), Job.class);
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.setThreadNamePrefix("app-scheduler-");
		scheduler.initialize();
		ExecutorService executor = Executors.newFixedThreadPool(2, (task) -> new Thread(task, "app-worker"));
		try {
			Queue<String> threads = new ConcurrentLinkedQueue<>();
			QueueListenerContainer<Job> container = this.registry.createContainer(queue,
					(message) -> threads.add(Thread.currentThread().getName()), 2);
			container.setExecutor(executor);
			container.setTaskScheduler(scheduler);
			this.containers.add(container);
			container.start();
			for (int i = 0; i < 20; i++) {
				queue.enqueue(new Job("e", i));
			}
			awaitTrue(() -> queue.stats().total() == 0, Duration.ofSeconds(30));
			assertThat(threads).hasSize(20).allMatch("app-worker"::equals);
			assertThat(scheduler.getScheduledThreadPoolExecutor().getCompletedTaskCount()).isPositive();
			container.stop();
			assertThat(container.isRunning()).isFalse();
		}
		finally {
			executor.shutdownNow();
			scheduler.shutdown();
		}
	}

	/** Counts the script calls of each script, for the tests that count round trips. */
	static final class CountingScripts implements ScriptExecutor {

		private final ScriptExecutor delegate;

		private final Map<LuaScript, AtomicInteger> calls = new ConcurrentHashMap<>();

		private final Queue<Integer> claimMaxima = new ConcurrentLinkedQueue<>();

		/** Ack calls sent and not answered yet: their stage completes before the caller's completions run. */
		private final AtomicInteger acksOnTheWire = new AtomicInteger();

		private final AtomicInteger claimsBehindAcks = new AtomicInteger();

		CountingScripts(ScriptExecutor delegate) {
			this.delegate = delegate;
		}

		int calls(LuaScript script) {
			AtomicInteger count = this.calls.get(script);
			return (count != null) ? count.get() : 0;
		}

		/** @return the most messages each claim asked for, in the order they were sent */
		Queue<Integer> claimMaxima() {
			return this.claimMaxima;
		}

		/** @return the claims sent while an ack call was on the wire, not answered yet */
		int claimsBehindAcks() {
			return this.claimsBehindAcks.get();
		}

		private void count(LuaScript script) {
			this.calls.computeIfAbsent(script, (key) -> new AtomicInteger()).incrementAndGet();
		}

		@Override
		public <T> @Nullable T execute(LuaScript script, ReturnType returnType, int numKeys, byte[]... keysAndArgs) {
			count(script);
			return this.delegate.execute(script, returnType, numKeys, keysAndArgs);
		}

		@Override
		public <T> CompletionStage<@Nullable T> executeAsync(LuaScript script, ReturnType returnType, int numKeys,
				byte[]... keysAndArgs) {
			count(script);
			if (script == QueueScripts.CLAIM) {
				// ARGV: the time, the request id, then the most messages to claim.
				this.claimMaxima.add(Integer.parseInt(new String(keysAndArgs[numKeys + 2], StandardCharsets.UTF_8)));
				if (this.acksOnTheWire.get() > 0) {
					this.claimsBehindAcks.incrementAndGet();
				}
			}
			if (script == QueueScripts.ACK_MANY || script == QueueScripts.ACK) {
				this.acksOnTheWire.incrementAndGet();
				CompletionStage<@Nullable T> call = this.delegate.executeAsync(script, returnType, numKeys, keysAndArgs);
				// Counted down before the caller's completions run, which see the call answered.
				return call.whenComplete((reply, failure) -> this.acksOnTheWire.decrementAndGet());
			}
			return this.delegate.executeAsync(script, returnType, numKeys, keysAndArgs);
		}

		@Override
		public <T> CompletionStage<ReplicaWait.Acknowledged<@Nullable T>> executeAndWaitAsync(LuaScript script,
				ReturnType returnType, ReplicaWait wait, int numKeys, byte[]... keysAndArgs) {
			count(script);
			return this.delegate.executeAndWaitAsync(script, returnType, wait, numKeys, keysAndArgs);
		}

		@Override
		public boolean isNative() {
			return this.delegate.isNative();
		}

	}

	private <T> QueueListenerContainer<T> start(RedisQueue<T> queue, QueueHandler<T> handler, int concurrency) {
		QueueListenerContainer<T> container = this.registry.createContainer(queue, handler, concurrency);
		this.containers.add(container);
		container.start();
		return container;
	}

	@Test
	void aCancelledMessageWaitingInTheBufferIsNeverStarted() throws Exception {
		RedisQueue<Job> queue = this.registry.create("jobs", QueueTesting.fastSpec(), Job.class);
		CountDownLatch first = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Queue<Integer> handled = new ConcurrentLinkedQueue<>();
		QueueListenerContainer<Job> container = start(queue, (message) -> {
			handled.add(message.payload().number());
			first.countDown();
			release.await(30, TimeUnit.SECONDS);
		}, 1);
		// The cancel notification needs the container's subscription, which it opens as it starts.
		awaitTrue(() -> ((List<?>) redis.server().command("PUBSUB", "NUMSUB", "rk:queue:{jobs}:cancel")).get(1)
			.equals(1L), Duration.ofSeconds(10));
		queue.enqueue(new Job("running", 1));
		assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
		String waiting = queue.enqueue(new Job("waiting", 2));
		awaitTrue(() -> container.getInFlightCount() == 2, Duration.ofSeconds(10));
		// Told after the container on the same subscription, so once this sees the id, the container has too.
		Set<String> told = ConcurrentHashMap.newKeySet();
		ScriptedRedisQueue<Job> scripted = (ScriptedRedisQueue<Job>) queue;
		scripted.parts().signals.listen(scripted.keys().cancelChannel, told::add);
		assertThat(queue.cancel(waiting)).isTrue();
		awaitTrue(() -> told.contains(waiting), Duration.ofSeconds(10));
		release.countDown();
		awaitTrue(() -> queue.stats().total() == 1 && queue.stats().dead() == 1, Duration.ofSeconds(10));
		assertThat(handled).containsExactly(1);
		assertThat(queue.deadLetters(1)).extracting(DeadLetter::reason).containsExactly(DeadLetter.CANCELLED);
		assertThat(this.recorder.events).contains("cancelled", "dead cancelled");
	}

	static void awaitTrue(BooleanSupplier condition, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Condition not met within " + timeout);
			}
			Thread.sleep(20);
		}
	}

}
