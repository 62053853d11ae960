package io.rediskit.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Stages;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.Topology;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the queue promises on every topology (run once per {@link Topology}): delivery and
 * acknowledgement with nothing left behind, deduplication, delayed delivery, retries into the dead-letter
 * queue, stale deliveries refused, batches without CROSSSLOT, a listener container woken by notifications,
 * headers and time to live, cancelling a running job from another instance, recurring jobs, flows and batches, and
 * groups (the rotation, the share of messages without a group, per-group limits across instances, per-group rate).
 */
class QueueContractTests extends TopologyContract {

	QueueRegistry registry;

	@BeforeEach
	void setUpRegistry() {
		this.registry = new QueueRegistry(TopologyScripts.of(this.redis), this.redis.connections(), KeyNaming.defaults(),
				JsonMapper.builder().build(), List.of(), (name) -> null);
	}

	@AfterEach
	void closeRegistry() {
		this.registry.close();
	}

	private RedisQueue<Job> queue(QueueSpec spec) {
		return this.registry.create(this.redis.unique("jobs"), spec, Job.class);
	}

	@Test
	void deliversWhatWasSentAndLeavesNoMessageDataBehind() throws Exception {
		RedisQueue<Job> queue = queue(QueueTesting.fastSpec());
		String id = queue.enqueue(new Job("a", 1));
		QueueMessage<Job> message = queue.poll(1, Duration.ofSeconds(10)).get(0);
		assertThat(message.id()).isEqualTo(id);
		assertThat(message.payload()).isEqualTo(new Job("a", 1));
		message.ack();
		assertThat(queue.stats().total()).isZero();
		for (String part : List.of("delayed", "ready", "in-flight", "dead", "meta", "payloads", "reasons")) {
			assertThat(this.redis.exists(KeyNaming.defaults().key("queue", queue.name(), part))).as(part).isFalse();
		}
	}

	@Test
	void deduplicatesAndCancels() {
		RedisQueue<Job> queue = queue(QueueTesting.fastSpec());
		QueueEntry<Job> entry = QueueEntry.of(new Job("d", 1)).withId("same").withDelay(Duration.ofMinutes(1));
		assertThat(queue.enqueue(entry)).isEqualTo("same");
		assertThat(queue.enqueue(entry)).isEqualTo("same");
		assertThat(queue.stats().delayed()).isEqualTo(1);
		assertThat(queue.cancel("same")).isTrue();
		assertThat(queue.stats().total()).isZero();
	}

	@Test
	void aBatchIsOneScriptInOneSlotAndIsClaimedInOrder() throws Exception {
		RedisQueue<Job> queue = queue(QueueTesting.fastSpec());
		List<QueueEntry<Job>> entries = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			entries.add(QueueEntry.of(new Job("b", i)));
		}
		queue.enqueueAll(entries);
		List<QueueMessage<Job>> messages = queue.poll(200, Duration.ofSeconds(10));
		assertThat(messages).extracting((m) -> m.payload().number())
			.containsExactlyElementsOf(java.util.stream.IntStream.range(0, 200).boxed().toList());
		for (QueueMessage<Job> message : messages) {
			message.ack();
		}
	}

	@Test
	void delaysRetriesAndDeadLetters() throws Exception {
		RedisQueue<Job> queue = queue(QueueTesting.fastSpec().withMaxDeliveries(2));
		queue.enqueue(new Job("late", 1), Duration.ofMillis(300));
		QueueMessage<Job> first = queue.poll(1, Duration.ofSeconds(10)).get(0);
		assertThat(first.deliveredAt()).isAfterOrEqualTo(first.dueAt());
		first.retry(Duration.ofMillis(100));
		QueueMessage<Job> second = queue.poll(1, Duration.ofSeconds(10)).get(0);
		assertThat(second.deliveryCount()).isEqualTo(2);
		second.retry("failed again");
		assertThat(queue.deadLetters(1)).extracting(DeadLetter::reason).containsExactly("delivery 2 of 2 failed: failed again");
		assertThat(queue.redrive(1)).isEqualTo(1);
		queue.poll(1, Duration.ofSeconds(10)).get(0).ack();
		assertThat(queue.stats().total()).isZero();
	}

	@Test
	void oneChosenDeadLetterIsRedrivenOrDeletedOnceWhateverRunsBeside() throws Exception {
		RedisQueue<Job> queue = queue(QueueTesting.fastSpec());
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			ids.add(queue.enqueue(new Job("dead", i)));
		}
		for (QueueMessage<Job> message : queue.poll(4, Duration.ofSeconds(10))) {
			message.deadLetter("poison");
		}
		assertThat(queue.stats().dead()).isEqualTo(4);
		assertThat(queue.redriveDeadLetter(ids.get(1))).isTrue();
		assertThat(queue.redriveDeadLetter(ids.get(1))).as("no longer dead").isFalse();
		assertThat(queue.deleteDeadLetter(ids.get(1))).as("ready, not dead: left alone").isFalse();
		assertThat(queue.deleteDeadLetterAsync(ids.get(2)).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(queue.deleteDeadLetter(ids.get(2))).isFalse();
		assertThat(queue.redriveDeadLetter("unknown")).isFalse();
		assertThat(queue.deadLetters(10)).extracting(DeadLetter::id).containsExactly(ids.get(0), ids.get(3));
		QueueMessage<Job> redriven = queue.poll(1, Duration.ofSeconds(10)).get(0);
		assertThat(redriven.id()).isEqualTo(ids.get(1));
		assertThat(redriven.deliveryCount()).as("delivery count reset").isEqualTo(1);
		redriven.ack();
		// Eight redrives of one letter race a redrive of all and a delete: each letter moves or goes once.
		ExecutorService executor = Executors.newFixedThreadPool(10);
		try {
			List<Future<Boolean>> chosen = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				chosen.add(executor.submit(() -> queue.redriveDeadLetter(ids.get(0))));
			}
			Future<Long> all = executor.submit(() -> queue.redrive(100));
			Future<Boolean> deleted = executor.submit(() -> queue.deleteDeadLetter(ids.get(3)));
			long moved = all.get(10, TimeUnit.SECONDS) + (deleted.get(10, TimeUnit.SECONDS) ? 1 : 0);
			for (Future<Boolean> one : chosen) {
				moved += one.get(10, TimeUnit.SECONDS) ? 1 : 0;
			}
			assertThat(moved).isEqualTo(2);
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(queue.stats().dead()).isZero();
		List<QueueMessage<Job>> again = queue.poll(10, Duration.ZERO);
		assertThat(again).extracting(QueueMessage::id).doesNotHaveDuplicates().contains(ids.get(0));
		for (QueueMessage<Job> message : again) {
			message.ack();
		}
		assertThat(queue.stats().total()).isZero();
		for (String part : List.of("meta", "payloads", "reasons")) {
			assertThat(this.redis.exists(KeyNaming.defaults().key("queue", queue.name(), part))).as(part).isFalse();
		}
	}

	@Test
	void prioritiesTakeWeightedTurnsAndKeepTheirKeysInTheQueuesSlot() throws Exception {
		RedisQueue<Job> queue = queue(QueueTesting.fastSpec());
		List<QueueEntry<Job>> entries = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			entries.add(QueueEntry.of(new Job("low", i)).withPriority(QueuePriority.LOW));
		}
		for (int i = 0; i < 10; i++) {
			entries.add(QueueEntry.of(new Job("high", i)).withPriority(QueuePriority.HIGH));
			entries.add(QueueEntry.of(new Job("normal", i)));
		}
		queue.enqueueAll(entries);
		assertThat(queue.stats().ready()).isEqualTo(40);
		List<QueueMessage<Job>> messages = queue.poll(10, Duration.ofSeconds(10));
		assertThat(messages).extracting((m) -> m.payload().name()).containsExactly("high", "normal", "high", "low",
				"high", "normal", "high", "normal", "high", "high");
		// A retried message keeps its priority.
		messages.get(0).retry(Duration.ZERO);
		for (QueueMessage<Job> message : messages.subList(1, messages.size())) {
			message.ack();
		}
		// Behind the other high ones, and ahead of every normal and low one still waiting.
		assertThat(queue.poll(10, Duration.ofSeconds(10))).extracting(QueueMessage::payload)
			.contains(new Job("high", 0));
		assertThat(queue.purge()).isEqualTo(31);
	}

	@Test
	void pauseAndLimitsHoldBackClaimsWithoutCountingADelivery() throws Exception {
		RedisQueue<Job> queue = queue(
				QueueTesting.fastSpec().withMaxInFlight(2).withRateLimit(3, Duration.ofMinutes(1)));
		for (int i = 0; i < 5; i++) {
			queue.enqueue(new Job("p", i));
		}
		queue.pause();
		assertThat(queue.isPaused()).isTrue();
		assertThat(queue.poll(5, Duration.ZERO)).isEmpty();
		queue.resume();
		List<QueueMessage<Job>> first = queue.poll(5, Duration.ZERO);
		assertThat(first).hasSize(2);
		assertThat(queue.poll(5, Duration.ZERO)).as("two in flight").isEmpty();
		for (QueueMessage<Job> message : first) {
			message.ack();
		}
		List<QueueMessage<Job>> second = queue.poll(5, Duration.ZERO);
		assertThat(second).as("the third of 3 per minute").hasSize(1);
		second.get(0).ack();
		assertThat(queue.poll(5, Duration.ZERO)).isEmpty();
		assertThat(queue.stats().ready()).isEqualTo(2);
		assertThat(queue.purge()).isEqualTo(2);
	}

	@Test
	void aStaleDeliveryIsRefused() throws Exception {
		RedisQueue<Job> queue = queue(QueueTesting.fastSpec().withVisibilityTimeout(Duration.ofMillis(300)));
		queue.enqueue(new Job("s", 1));
		QueueMessage<Job> first = queue.poll(1, Duration.ofSeconds(10)).get(0);
		QueueMessage<Job> second = queue.poll(1, Duration.ofSeconds(10)).get(0);
		assertThatExceptionOfType(StaleDeliveryException.class).isThrownBy(first::ack);
		second.ack();
	}

	@Test
	void aContainerIsWokenByNotificationsAndProcessesEverything() throws Exception {
		RedisQueue<Job> queue = queue(QueueTesting.fastSpec().withPollInterval(Duration.ofSeconds(30)));
		Set<Integer> seen = ConcurrentHashMap.newKeySet();
		QueueListenerContainer<Job> container = this.registry.createContainer(queue,
				(message) -> seen.add(message.payload().number()), 4);
		container.start();
		try {
			for (int i = 0; i < 20; i++) {
				queue.enqueue(new Job("w", i), Duration.ofMillis(i * 10L));
			}
			// With a 30 s poll, only the timer and the notifications deliver within the bound.
			QueueListenerContainerTests.awaitTrue(() -> seen.size() == 20, Duration.ofSeconds(20));
		}
		finally {
			container.stop();
		}
		assertThat(queue.stats().total()).isZero();
	}

	@Test
	void headersTravelWithTheMessageAndAnExpiredMessageIsDeadLettered() throws Exception {
		RedisQueue<Job> queue = queue(QueueTesting.fastSpec());
		String bare = queue.enqueue(new Job("bare", 1));
		String traced = queue.enqueue(QueueEntry.of(new Job("traced", 2)).withHeader("trace-id", "4bf92f3577b34da6")
			.withHeader("tenant", "acme")
			.withTimeToLive(Duration.ofMinutes(1)));
		String expiring = queue.enqueue(QueueEntry.of(new Job("expiring", 3)).withTimeToLive(Duration.ofMillis(1)));
		// Real time passes on the server's clock too: the 1 ms time to live is over once this returns.
		Thread.sleep(20);
		List<QueueMessage<Job>> messages = queue.poll(3, Duration.ofSeconds(10));
		assertThat(messages).extracting(QueueMessage::id).containsExactly(bare, traced);
		assertThat(messages.get(0).headers()).isEmpty();
		assertThat(messages.get(1).headers()).containsExactly(Map.entry("trace-id", "4bf92f3577b34da6"),
				Map.entry("tenant", "acme"));
		assertThat(messages.get(1).payload()).isEqualTo(new Job("traced", 2));
		messages.forEach(QueueMessage::ack);
		QueueListenerContainerTests.awaitTrue(() -> queue.stats().dead() == 1, Duration.ofSeconds(10));
		assertThat(queue.deadLetters(10)).extracting(DeadLetter::id, DeadLetter::reason, DeadLetter::payload)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(expiring, DeadLetter.EXPIRED,
					"{\"name\":\"expiring\",\"number\":3}"));
	}

	@Test
	void aDeliveryKnowsItsPriorityAndADeadLetterKeepsItsHeaders() throws Exception {
		RedisQueue<Job> queue = queue(QueueTesting.fastSpec());
		String urgent = queue.enqueue(QueueEntry.of(new Job("urgent", 1)).withPriority(QueuePriority.HIGH)
			.withHeader("trace-id", "4bf92f3577b34da6")
			.withHeader("tenant", "acme"));
		String later = queue.enqueue(QueueEntry.of(new Job("later", 2)).withPriority(QueuePriority.LOW));
		String plain = queue.enqueue(new Job("plain", 3));
		List<QueueMessage<Job>> messages = queue.poll(3, Duration.ofSeconds(10));
		assertThat(messages).extracting(QueueMessage::id, QueueMessage::priority)
			.containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(urgent, QueuePriority.HIGH),
					org.assertj.core.groups.Tuple.tuple(later, QueuePriority.LOW),
					org.assertj.core.groups.Tuple.tuple(plain, QueuePriority.NORMAL));
		for (QueueMessage<Job> message : messages) {
			if (message.id().equals(plain)) {
				message.ack();
			}
			else {
				message.deadLetter("poison");
			}
		}
		Map<String, DeadLetter> dead = new java.util.HashMap<>();
		queue.deadLetters(10).forEach((letter) -> dead.put(letter.id(), letter));
		assertThat(dead).containsOnlyKeys(urgent, later);
		assertThat(dead.get(urgent).headers()).containsExactly(Map.entry("trace-id", "4bf92f3577b34da6"),
				Map.entry("tenant", "acme"));
		assertThat(dead.get(urgent).payload()).isEqualTo("{\"name\":\"urgent\",\"number\":1}");
		assertThat(dead.get(later).headers()).isEmpty();
		assertThat(dead.get(urgent).priority()).isEqualTo(QueuePriority.HIGH);
		assertThat(dead.get(later).priority()).isEqualTo(QueuePriority.LOW);
		// Redriven, each comes back at its own priority.
		assertThat(queue.redrive(10)).isEqualTo(2);
		assertThat(queue.poll(2, Duration.ofSeconds(10))).extracting(QueueMessage::id, QueueMessage::priority)
			.containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(urgent, QueuePriority.HIGH),
					org.assertj.core.groups.Tuple.tuple(later, QueuePriority.LOW));
	}

	@Test
	void aDeliveryTakenBackAfterItsVisibilityTimeoutKeepsItsPriority() throws Exception {
		RedisQueue<Job> queue = queue(QueueTesting.fastSpec().withVisibilityTimeout(Duration.ofMillis(300)));
		String low = queue.enqueue(QueueEntry.of(new Job("low", 1)).withPriority(QueuePriority.LOW));
		QueueMessage<Job> first = queue.poll(1, Duration.ofSeconds(10)).get(0);
		assertThat(first.priority()).isEqualTo(QueuePriority.LOW);
		// Its consumer never settles it: once the deadline passes, the next poll takes it back and delivers it again.
		QueueMessage<Job> second = queue.poll(1, Duration.ofSeconds(10)).get(0);
		assertThat(second.id()).isEqualTo(low);
		assertThat(second.deliveryCount()).isEqualTo(2);
		assertThat(second.priority()).isEqualTo(QueuePriority.LOW);
		second.ack();
	}

	@Test
	void aRunningJobCancelledFromAnotherInstanceIsInterruptedAndDeadLettered() throws Exception {
		QueueSpec spec = QueueTesting.fastSpec();
		RedisQueue<Job> queue = queue(spec);
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch never = new CountDownLatch(1);
		AtomicReference<Throwable> interrupted = new AtomicReference<>();
		Set<Integer> done = ConcurrentHashMap.newKeySet();
		QueueListenerContainer<Job> container = this.registry.createContainer(queue, (message) -> {
			if (message.payload().number() == 1) {
				started.countDown();
				try {
					never.await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					interrupted.set(ex);
					throw ex;
				}
			}
			done.add(message.payload().number());
		}, 1);
		container.start();
		QueueRegistry other = new QueueRegistry(TopologyScripts.of(this.redis), this.redis.connections(),
				KeyNaming.defaults(), JsonMapper.builder().build(), List.of(), (name) -> null);
		try {
			String id = queue.enqueue(new Job("long", 1));
			assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
			RedisQueue<Job> elsewhere = other.create(queue.name(), spec, Job.class);
			assertThat(elsewhere.cancel(id)).isTrue();
			// Cancelled again until the interrupt is seen: the container's subscription opens as it starts.
			QueueListenerContainerTests.awaitTrue(() -> {
				if (interrupted.get() == null) {
					elsewhere.cancel(id);
				}
				return interrupted.get() != null;
			}, Duration.ofSeconds(10));
			QueueListenerContainerTests.awaitTrue(() -> queue.stats().dead() == 1, Duration.ofSeconds(10));
			assertThat(queue.deadLetters(10)).extracting(DeadLetter::id, DeadLetter::reason)
				.containsExactly(org.assertj.core.groups.Tuple.tuple(id, DeadLetter.CANCELLED));
			// The handler's thread goes on with the next message.
			queue.enqueue(new Job("next", 2));
			QueueListenerContainerTests.awaitTrue(() -> done.contains(2), Duration.ofSeconds(10));
			assertThat(done).containsExactly(2);
		}
		finally {
			container.stop();
			other.close();
		}
		assertThat(queue.stats().total()).isEqualTo(1);
	}

	@Test
	void recurringJobsOfTwoInstancesEnqueueEachSlotOnce() throws Exception {
		String name = this.redis.unique("ticks");
		RedisQueue<RecurringSlot> queue = this.registry.create(name, QueueTesting.fastSpec(), RecurringSlot.class);
		Queue<Instant> slots = new ConcurrentLinkedQueue<>();
		QueueListenerContainer<RecurringSlot> container = this.registry.createContainer(queue,
				(message) -> slots.add(message.payload().slot()), 1);
		RecurringJobSpec spec = RecurringJobSpec.fixedRate(name, Duration.ofMillis(100));
		container.start();
		try (RecurringJobs first = new RecurringJobs(TopologyScripts.of(this.redis), this.registry, List.of());
				RecurringJobs second = new RecurringJobs(TopologyScripts.of(this.redis), this.registry, List.of())) {
			first.setInstanceName("first");
			second.setInstanceName("second");
			first.add("tick", spec);
			second.add("tick", spec);
			first.start();
			second.start();
			QueueListenerContainerTests.awaitTrue(() -> slots.size() >= 8, Duration.ofSeconds(20));
			// The taker is kept beside the record, in the queue's hash slot: no CROSSSLOT on a cluster.
			assertThat(first.jobs().get(0).lastSlotTakenBy()).isIn("first", "second");
		}
		finally {
			container.stop();
		}
		List<Long> sorted = slots.stream().map(Instant::toEpochMilli).sorted().toList();
		for (int i = 1; i < sorted.size(); i++) {
			assertThat(sorted.get(i)).as("each slot once, none left out").isEqualTo(sorted.get(i - 1) + 100);
		}
	}


	@Test
	void aFlowAndABatchRunThroughAContainerInTheQueuesSlot() throws Exception {
		RedisQueue<Job> queue = queue(QueueTesting.fastSpec());
		Map<String, Map<String, Integer>> parents = new ConcurrentHashMap<>();
		Queue<String> callbacks = new ConcurrentLinkedQueue<>();
		QueueListenerContainer<Job> container = this.registry.createContainer(queue, (message) -> {
			switch (message.payload().name()) {
				case "child" -> message.setResult(message.payload().number() * 10);
				case "parent" -> parents.put(message.id(), message.children().results(Integer.class));
				case "callback" -> callbacks.add(message.id());
				default -> {
				}
			}
		}, 4);
		container.start();
		try {
			List<QueueEntry<Job>> children = new ArrayList<>();
			for (int i = 1; i <= 5; i++) {
				children.add(QueueEntry.of(new Job("child", i)).withId("child-" + i));
			}
			queue.enqueueFlow(QueueFlow.of(QueueEntry.of(new Job("parent", 0)).withId("parent"), children));
			String batch = queue.enqueueBatch(QueueBatch.of(List.of(QueueEntry.of(new Job("member", 1)),
					QueueEntry.of(new Job("member", 2)))).onSuccess(QueueEntry.of(new Job("callback", 0))));
			QueueListenerContainerTests.awaitTrue(() -> parents.size() == 1 && callbacks.size() == 1,
					Duration.ofSeconds(20));
			assertThat(parents.get("parent")).containsExactly(Map.entry("child-1", 10), Map.entry("child-2", 20),
					Map.entry("child-3", 30), Map.entry("child-4", 40), Map.entry("child-5", 50));
			assertThat(callbacks).containsExactly(batch + ":success");
			assertThat(queue.batchProgress(batch).succeeded()).isEqualTo(2);
		}
		finally {
			container.stop();
		}
		assertThat(queue.stats().total()).isZero();
		assertThat(this.redis.exists(KeyNaming.defaults().key("queue", queue.name(), "workflow")))
			.as("only the finished batch's record").isTrue();
	}

	@Test
	void groupsTakeTurnsSoAFloodHoldsBackNeitherAFewNorTheMessagesWithoutAGroup() throws Exception {
		RedisQueue<Job> queue = queue(QueueTesting.fastSpec().withGroups(QueueGroups.roundRobin()));
		List<QueueEntry<Job>> entries = new ArrayList<>();
		for (int i = 0; i < 300; i++) {
			entries.add(QueueEntry.of(new Job("big", i)).withGroup("big"));
		}
		for (int i = 0; i < 5; i++) {
			entries.add(QueueEntry.of(new Job("small", i)).withGroup("small"));
			entries.add(QueueEntry.of(new Job("plain", i)));
		}
		queue.enqueueAll(entries);
		// Three in the turn (big, small, then the messages without a group): five rounds of one message each.
		List<QueueMessage<Job>> first = new ArrayList<>();
		for (int round = 0; round < 5; round++) {
			List<QueueMessage<Job>> claimed = queue.poll(3, Duration.ZERO);
			assertThat(claimed).extracting((m) -> m.payload().name())
				.as("round " + round)
				.containsExactlyInAnyOrder("big", "small", "plain");
			first.addAll(claimed);
		}
		assertThat(queue.groupStats(10)).containsExactly(new GroupStats("big", 295, 5), new GroupStats("small", 0, 5));
		assertThat(queue.groupStats(1)).extracting(GroupStats::group).containsExactly("big");
		// Each group's messages in the order they were enqueued.
		for (String group : List.of("big", "small", "plain")) {
			assertThat(first).filteredOn((m) -> m.payload().name().equals(group))
				.extracting((m) -> m.payload().number())
				.containsExactly(0, 1, 2, 3, 4);
		}
		first.forEach(QueueMessage::ack);
		// The few are done: the flood has every turn.
		assertThat(queue.poll(10, Duration.ZERO)).extracting((m) -> m.payload().number())
			.containsExactly(5, 6, 7, 8, 9, 10, 11, 12, 13, 14);
		assertThat(queue.stats().inFlight()).isEqualTo(10);
		assertThat(queue.purge()).isEqualTo(295);
	}

	@Test
	void aGroupAtItsLimitIsSkippedUntilOneOfItsMessagesIsSettled() throws Exception {
		RedisQueue<Job> queue = queue(QueueTesting.fastSpec()
			.withGroups(QueueGroups.roundRobin().withMaxInFlight(2).withMaxInFlight("vip", 3)));
		List<QueueEntry<Job>> entries = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			entries.add(QueueEntry.of(new Job("a", i)).withGroup("a"));
			entries.add(QueueEntry.of(new Job("vip", i)).withGroup("vip"));
		}
		for (int i = 0; i < 3; i++) {
			entries.add(QueueEntry.of(new Job("plain", i)));
		}
		queue.enqueueAll(entries);
		List<QueueMessage<Job>> claimed = queue.poll(20, Duration.ZERO);
		Map<String, Long> byGroup = new java.util.TreeMap<>();
		claimed.forEach((m) -> byGroup.merge(m.payload().name(), 1L, Long::sum));
		assertThat(byGroup).containsExactly(Map.entry("a", 2L), Map.entry("plain", 3L), Map.entry("vip", 3L));
		assertThat(queue.poll(20, Duration.ZERO)).as("every group at its limit, no message without one left").isEmpty();
		assertThat(queue.stats().ready()).isEqualTo(15);
		// A settled message of a group makes room for one more of that group, and of no other.
		QueueMessage<Job> a = claimed.stream().filter((m) -> m.payload().name().equals("a")).findFirst().get();
		a.retry(Duration.ofMinutes(1));
		assertThat(queue.poll(20, Duration.ZERO)).extracting((m) -> m.payload().name(), (m) -> m.payload().number())
			.containsExactly(org.assertj.core.groups.Tuple.tuple("a", 2));
		assertThat(queue.purge()).isEqualTo(23);
	}

	@Test
	void aGroupOverItsRateIsSkippedWhileTheOthersGoOn() throws Exception {
		RedisQueue<Job> queue = queue(QueueTesting.fastSpec()
			.withGroups(QueueGroups.roundRobin().withRateLimit(2, Duration.ofHours(1)).withRateLimit("vip", 0)));
		List<QueueEntry<Job>> entries = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			entries.add(QueueEntry.of(new Job("a", i)).withGroup("a"));
			entries.add(QueueEntry.of(new Job("vip", i)).withGroup("vip"));
		}
		queue.enqueueAll(entries);
		List<QueueMessage<Job>> claimed = queue.poll(10, Duration.ZERO);
		assertThat(claimed).filteredOn((m) -> m.payload().name().equals("a")).hasSize(2);
		assertThat(claimed).filteredOn((m) -> m.payload().name().equals("vip")).as("no limit of its own").hasSize(5);
		claimed.forEach(QueueMessage::ack);
		// Settling frees no rate: two of 'a' this hour.
		assertThat(queue.poll(10, Duration.ZERO)).isEmpty();
		assertThat(queue.stats().ready()).isEqualTo(3);
		assertThat(queue.purge()).isEqualTo(3);
	}

	@Test
	void aMessageGivenBackAtOnceWaitsForItsGroupsTurnAndLimits() throws Exception {
		RedisQueue<Job> queue = queue(QueueTesting.fastSpec().withGroups(QueueGroups.roundRobin().withMaxInFlight(1)));
		queue.enqueueAll(List.of(QueueEntry.of(new Job("a", 0)).withGroup("a"),
				QueueEntry.of(new Job("a", 1)).withGroup("a"), QueueEntry.of(new Job("b", 0)).withGroup("b")));
		List<QueueMessage<Job>> first = queue.poll(10, Duration.ZERO);
		assertThat(first).extracting((m) -> m.payload().name() + m.payload().number()).containsExactly("a0", "b0");
		// A stopping consumer gives a0 back: it is a's next again, and a's only one in flight.
		Stages.join(((Delivery<Job>) first.get(0)).releaseAsync());
		List<QueueMessage<Job>> again = queue.poll(10, Duration.ZERO);
		assertThat(again).extracting((m) -> m.payload().name() + m.payload().number()).containsExactly("a0");
		assertThat(queue.poll(10, Duration.ZERO)).as("a1 waits for a0, b is at its limit").isEmpty();
		again.get(0).ack();
		assertThat(queue.poll(10, Duration.ZERO)).extracting((m) -> m.payload().name() + m.payload().number())
			.containsExactly("a1");
		assertThat(queue.purge()).isEqualTo(2);
	}

	@Test
	void noGroupRunsOverItsLimitAcrossInstancesAndEveryMessageIsHandledOnce() throws Exception {
		QueueSpec spec = QueueTesting.fastSpec()
			.withGroups(QueueGroups.roundRobin().withMaxInFlight(2).withMaxInFlight("vip", 3));
		RedisQueue<Job> queue = queue(spec);
		List<QueueEntry<Job>> entries = new ArrayList<>();
		for (int i = 0; i < 60; i++) {
			entries.add(QueueEntry.of(new Job("a", i)).withGroup("a"));
			entries.add(QueueEntry.of(new Job("vip", i)).withGroup("vip"));
			entries.add(QueueEntry.of(new Job("plain", i)));
		}
		queue.enqueueAll(entries);
		Queue<GroupShareChecker.Handling> handlings = new ConcurrentLinkedQueue<>();
		QueueHandler<Job> handler = (message) -> {
			long start = System.nanoTime();
			handlings.add(new GroupShareChecker.Handling(message.payload().name(), message.id(), start,
					System.nanoTime()));
		};
		QueueRegistry other = new QueueRegistry(TopologyScripts.of(this.redis), this.redis.connections(),
				KeyNaming.defaults(), JsonMapper.builder().build(), List.of(), (name) -> null);
		List<QueueListenerContainer<Job>> containers = List.of(this.registry.createContainer(queue, handler, 4),
				other.createContainer(other.create(queue.name(), spec, Job.class), handler, 4));
		try {
			containers.forEach(QueueListenerContainer::start);
			QueueListenerContainerTests.awaitTrue(() -> handlings.size() >= 180, Duration.ofSeconds(60));
		}
		finally {
			containers.forEach(QueueListenerContainer::stop);
			other.close();
		}
		List<GroupShareChecker.Handling> run = List.copyOf(handlings);
		// The limits only: how the starts interleave depends on which instance claims when.
		assertThat(GroupShareChecker.check(run, run.size(), Map.of("a", 2, "vip", 3))).isEmpty();
		assertThat(run).extracting(GroupShareChecker.Handling::id).doesNotHaveDuplicates().hasSize(180);
		assertThat(queue.stats().total()).isZero();
		for (String part : List.of("group-of", "group-ready", "meta", "payloads")) {
			assertThat(this.redis.exists(KeyNaming.defaults().key("queue", queue.name(), part))).as(part).isFalse();
		}
	}

}
