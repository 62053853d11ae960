package io.rediskit.queue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.queue.QueueTesting.Recorder;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Flows and batches through {@link RedisQueue}'s API: a parent due only after its last child succeeded, with their
 * results; each {@link ChildFailurePolicy}; a cancelled parent taking its waiting children; batch callbacks once
 * with their headers and the batch's progress; nothing left in Redis once everything finished.
 */
class QueueWorkflowTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final Recorder recorder = new Recorder();

	QueueRegistry registry;

	RedisQueue<Job> queue;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = QueueTesting.registry(redis, this.recorder);
		this.queue = this.registry.create("flows", QueueTesting.fastSpec(), Job.class);
	}

	@AfterEach
	void tearDown() {
		this.registry.close();
	}

	@Test
	void theParentRunsOnlyAfterItsLastChildSucceededAndReadsTheirResults() throws Exception {
		QueueFlow.FlowIds ids = this.queue.enqueueFlow(QueueFlow.of(QueueEntry.of(new Job("parent", 0)).withId("p"),
				List.of(QueueEntry.of(new Job("child", 1)), QueueEntry.of(new Job("child", 2)),
						QueueEntry.of(new Job("child", 3)).withId("c3"))));
		assertThat(ids.enqueued()).isTrue();
		assertThat(ids.parentId()).isEqualTo("p");
		assertThat(ids.childIds()).hasSize(3).endsWith("c3");
		assertThat(this.recorder.events).containsExactly("enqueued 4");
		assertThat(this.queue.stats().waitingParents()).isEqualTo(1);
		assertThat(this.queue.stats().total()).as("the waiting parent in no state").isEqualTo(3);
		List<QueueMessage<Job>> children = QueueTesting.claim(this.queue, 3);
		assertThat(children).extracting(QueueMessage::id).containsExactlyInAnyOrderElementsOf(ids.childIds());
		assertThat(children).allSatisfy((child) -> assertThat(child.headers()).containsEntry(QueueFlow.PARENT_HEADER, "p"));
		for (int i = 0; i < 2; i++) {
			children.get(i).setResult(children.get(i).payload().number() * 10);
			children.get(i).ack();
			assertThat(this.queue.poll(10, Duration.ZERO)).as("the parent while a child runs").isEmpty();
		}
		assertThat(this.queue.stats().waitingParents()).isEqualTo(1);
		assertThat(released()).as("while a child runs").isEmpty();
		children.get(2).setResult(children.get(2).payload().number() * 10);
		children.get(2).ack();
		assertThat(released()).as("told once, by the last child's ack").containsExactly("parent all-finished");
		assertThat(this.queue.stats().waitingParents()).as("released").isZero();
		QueueMessage<Job> parent = QueueTesting.claim(this.queue, 1).get(0);
		assertThat(parent.id()).isEqualTo("p");
		assertThat(parent.headers()).doesNotContainKey(QueueFlow.PARENT_HEADER);
		FlowChildren outcome = parent.children();
		assertThat(outcome.allSucceeded()).isTrue();
		assertThat(outcome.results(Integer.class)).containsExactly(Map.entry(ids.childIds().get(0), 10),
				Map.entry(ids.childIds().get(1), 20), Map.entry("c3", 30));
		assertThat(outcome.failures()).isEmpty();
		parent.ack();
		assertThat(this.queue.stats().total()).isZero();
		assertNothingLeft();
	}

	@Test
	void aFlowWhoseParentIsThereAddsNothingAndOneWithAKnownChildIsRefused() {
		QueueFlow<Job> flow = QueueFlow.of(QueueEntry.of(new Job("parent", 0)).withId("p"),
				List.of(QueueEntry.of(new Job("child", 1)).withId("c")));
		assertThat(this.queue.enqueueFlow(flow).enqueued()).isTrue();
		assertThat(this.queue.enqueueFlow(flow).enqueued()).as("a retry").isFalse();
		assertThat(this.queue.stats().waitingParents()).as("counted once").isEqualTo(1);
		this.queue.enqueue(QueueEntry.of(new Job("other", 1)).withId("taken"));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queue.enqueueFlow(QueueFlow.of(QueueEntry.of(new Job("parent", 0)).withId("q"),
					List.of(QueueEntry.of(new Job("child", 1)).withId("taken")))))
			.withMessageContaining("taken");
		assertThat(this.queue.stats().total()).as("c and taken").isEqualTo(2);
	}

	@Test
	void aFlowOrABatchWithAGroupedMessageIsRefused() {
		RedisQueue<Job> grouped = this.registry.create("grouped",
				QueueTesting.fastSpec().withGroups(QueueGroups.roundRobin()), Job.class);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> grouped.enqueueFlow(QueueFlow.of(QueueEntry.of(new Job("parent", 0)),
					List.of(QueueEntry.of(new Job("child", 1)).withGroup("acme")))))
			.withMessageContaining("takes no group");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> grouped.enqueueBatch(QueueBatch.of(List.of(QueueEntry.of(new Job("member", 1))))
				.onComplete(QueueEntry.of(new Job("complete", 0)).withGroup("acme"))))
			.withMessageContaining("takes no group");
		assertThat(grouped.stats().total()).isZero();
	}

	@Test
	void failDeadLettersTheParentAndCancelsTheChildrenLeft() throws Exception {
		this.queue.enqueueFlow(QueueFlow.of(QueueEntry.of(new Job("parent", 0)).withId("p"),
				List.of(QueueEntry.of(new Job("child", 1)).withId("c1"), QueueEntry.of(new Job("child", 2)).withId("c2"),
						QueueEntry.of(new Job("child", 3)).withId("c3").withDelay(Duration.ofHours(1)))));
		List<QueueMessage<Job>> running = QueueTesting.claim(this.queue, 2);
		QueueMessage<Job> failing = running.get(0).id().equals("c1") ? running.get(0) : running.get(1);
		QueueMessage<Job> other = (failing == running.get(0)) ? running.get(1) : running.get(0);
		failing.deadLetter("boom");
		List<DeadLetter> dead = this.queue.deadLetters(10);
		assertThat(dead).extracting(DeadLetter::id).containsExactly("c1", "p");
		assertThat(dead.get(1).reason()).isEqualTo("child c1 failed: boom");
		assertThat(released()).containsExactly("parent failed");
		assertThat(this.queue.stats().waitingParents()).isZero();
		assertThat(this.queue.stats().delayed()).as("c3 removed").isZero();
		other.ack();
		assertThat(this.queue.deadLetters(10)).extracting(DeadLetter::id).as("c2 cancelled in flight")
			.containsExactly("c1", "p", "c2");
		assertThat(this.queue.deadLetters(10).get(2).reason()).isEqualTo(DeadLetter.CANCELLED);
		assertThat(released()).as("not again for a child cancelled in flight").containsExactly("parent failed");
		this.queue.purge();
		assertNothingLeft();
	}

	@Test
	void ignoreRunsTheParentOnceTheOthersFinishedWithTheFailureReadable() throws Exception {
		this.queue.enqueueFlow(QueueFlow.of(QueueEntry.of(new Job("parent", 0)).withId("p"),
				List.of(QueueEntry.of(new Job("child", 1)).withId("c1"), QueueEntry.of(new Job("child", 2)).withId("c2")))
			.onChildFailure(ChildFailurePolicy.IGNORE));
		List<QueueMessage<Job>> running = QueueTesting.claim(this.queue, 2);
		for (QueueMessage<Job> child : running) {
			if (child.id().equals("c1")) {
				child.deadLetter("boom");
			}
		}
		assertThat(this.queue.poll(10, Duration.ZERO)).as("c2 still runs").isEmpty();
		assertThat(released()).as("a failure under IGNORE releases nothing while c2 runs").isEmpty();
		for (QueueMessage<Job> child : running) {
			if (child.id().equals("c2")) {
				child.setResult("two");
				child.ack();
			}
		}
		assertThat(released()).containsExactly("parent all-finished");
		QueueMessage<Job> parent = QueueTesting.claim(this.queue, 1).get(0);
		assertThat(parent.id()).isEqualTo("p");
		FlowChildren children = parent.children();
		assertThat(children.failures()).containsExactly(Map.entry("c1", "boom"));
		assertThat(children.results(String.class)).containsExactly(Map.entry("c2", "two"));
		assertThat(children.allSucceeded()).isFalse();
		parent.ack();
		assertThat(this.queue.stats().total()).as("c1 dead").isEqualTo(1);
	}

	@Test
	void continueMakesTheParentDueAtTheFirstFailureAndOnlyOnce() throws Exception {
		this.queue.enqueueFlow(QueueFlow.of(QueueEntry.of(new Job("parent", 0)).withId("p"),
				List.of(QueueEntry.of(new Job("child", 1)).withId("c1"), QueueEntry.of(new Job("child", 2)).withId("c2"),
						QueueEntry.of(new Job("child", 3)).withId("c3")))
			.onChildFailure(ChildFailurePolicy.CONTINUE));
		List<QueueMessage<Job>> running = QueueTesting.claim(this.queue, 3);
		QueueMessage<Job> c2 = null;
		for (QueueMessage<Job> child : running) {
			if (child.id().equals("c1")) {
				child.deadLetter("boom");
			}
			else if (child.id().equals("c2")) {
				c2 = child;
			}
			else {
				child.ack();
			}
		}
		QueueMessage<Job> parent = QueueTesting.claim(this.queue, 1).get(0);
		assertThat(parent.id()).isEqualTo("p");
		assertThat(parent.children().all()).extracting(FlowChildren.Child::state).containsExactly(
				FlowChildren.State.FAILED, FlowChildren.State.PENDING, FlowChildren.State.SUCCEEDED);
		assertThat(released()).containsExactly("parent continued");
		c2.ack();
		assertThat(this.queue.poll(10, Duration.ZERO)).as("not due a second time").isEmpty();
		assertThat(released()).as("told once").containsExactly("parent continued");
		parent.ack();
		assertThat(this.queue.stats().total()).as("c1 dead").isEqualTo(1);
		this.queue.purge();
		assertNothingLeft();
	}

	@Test
	void cancellingTheWaitingParentCancelsItsChildren() throws Exception {
		this.queue.enqueueFlow(QueueFlow.of(QueueEntry.of(new Job("parent", 0)).withId("p"),
				List.of(QueueEntry.of(new Job("child", 1)).withId("c1"),
						QueueEntry.of(new Job("child", 2)).withId("c2").withDelay(Duration.ofHours(1)))));
		QueueMessage<Job> c1 = QueueTesting.claim(this.queue, 1).get(0);
		assertThat(this.queue.stats().waitingParents()).isEqualTo(1);
		assertThat(this.queue.cancel("p")).isTrue();
		assertThat(this.queue.stats().delayed()).as("c2 removed").isZero();
		assertThat(this.queue.stats().waitingParents()).isZero();
		c1.ack();
		assertThat(this.queue.deadLetters(10)).extracting(DeadLetter::id).as("c1 cancelled in flight")
			.containsExactly("c1");
		assertThat(this.queue.cancel("p")).isFalse();
		assertThat(released()).as("a cancelled parent is not released").isEmpty();
		this.queue.purge();
		assertNothingLeft();
	}

	@Test
	void aCancelledChildFailsItsParent() throws Exception {
		this.queue.enqueueFlow(QueueFlow.of(QueueEntry.of(new Job("parent", 0)).withId("p"),
				List.of(QueueEntry.of(new Job("child", 1)).withId("c1").withDelay(Duration.ofHours(1)))));
		assertThat(this.queue.cancel("c1")).isTrue();
		assertThat(this.queue.deadLetters(10)).singleElement().satisfies((dead) -> {
			assertThat(dead.id()).isEqualTo("p");
			assertThat(dead.reason()).isEqualTo("child c1 failed: cancelled");
		});
		assertThat(released()).as("told by the instance that cancelled").containsExactly("parent failed");
	}

	@Test
	void aBatchEnqueuesItsCallbacksOnceWithTheirHeadersAndCountsItsProgress() throws Exception {
		List<QueueEntry<Job>> members = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			members.add(QueueEntry.of(new Job("member", i)));
		}
		String batch = this.queue.enqueueBatch(QueueBatch.of(members).withId("b")
			.onComplete(QueueEntry.of(new Job("complete", 0)))
			.onSuccess(QueueEntry.of(new Job("success", 0)))
			.onDeath(QueueEntry.of(new Job("death", 0))));
		assertThat(batch).isEqualTo("b");
		assertThat(this.queue.enqueueBatch(QueueBatch.of(members).withId("b"))).as("a retry adds nothing")
			.isEqualTo("b");
		assertThat(this.queue.stats().ready()).isEqualTo(3);
		assertThat(this.queue.stats().batchesInProgress()).as("counted once").isEqualTo(1);
		assertThat(this.queue.batchesInProgress(10)).singleElement().satisfies((running) -> {
			assertThat(running.batchId()).isEqualTo("b");
			assertThat(running.total()).isEqualTo(3);
			assertThat(running.pending()).isEqualTo(3);
			assertThat(running.finished()).isFalse();
		});
		assertThat(this.recorder.events).containsExactly("enqueued 3");
		BatchProgress progress = this.queue.batchProgress("b");
		assertThat(progress.total()).isEqualTo(3);
		assertThat(progress.pending()).isEqualTo(3);
		assertThat(progress.finished()).isFalse();
		List<QueueMessage<Job>> claimed = QueueTesting.claim(this.queue, 3);
		assertThat(claimed).allSatisfy((m) -> assertThat(m.headers()).containsEntry(QueueBatch.BATCH_HEADER, "b"));
		claimed.get(0).ack();
		claimed.get(1).ack();
		assertThat(this.queue.poll(10, Duration.ZERO)).isEmpty();
		assertThat(this.queue.batchProgress("b").succeeded()).isEqualTo(2);
		assertThat(this.queue.stats().batchesInProgress()).isEqualTo(1);
		assertThat(released()).isEmpty();
		claimed.get(2).ack();
		assertThat(released()).as("told once, by the last member's ack").containsExactly("batch complete",
				"batch success");
		assertThat(this.queue.stats().batchesInProgress()).isZero();
		assertThat(this.queue.batchesInProgress(10)).isEmpty();
		List<QueueMessage<Job>> callbacks = QueueTesting.claim(this.queue, 2);
		assertThat(callbacks).extracting(QueueMessage::id).containsExactlyInAnyOrder("b:complete", "b:success");
		assertThat(callbacks).allSatisfy((m) -> assertThat(m.headers()).containsEntry(QueueBatch.BATCH_HEADER, "b"));
		assertThat(callbacks).extracting((m) -> m.headers().get(QueueBatch.EVENT_HEADER))
			.containsExactlyInAnyOrder("complete", "success");
		callbacks.forEach(QueueMessage::ack);
		progress = this.queue.batchProgress("b");
		assertThat(progress.succeeded()).isEqualTo(3);
		assertThat(progress.failed()).isZero();
		assertThat(progress.finished()).isTrue();
		assertThat(this.queue.stats().total()).isZero();
		assertThat(this.queue.poll(10, Duration.ZERO)).isEmpty();
		assertThat(released()).as("the callbacks are messages like any other").containsExactly("batch complete",
				"batch success");
	}

	@Test
	void aDeadMemberEnqueuesDeathOnceAndCompleteButNotSuccess() throws Exception {
		String batch = this.queue.enqueueBatch(QueueBatch.of(List.of(QueueEntry.of(new Job("member", 1)),
				QueueEntry.of(new Job("member", 2)), QueueEntry.of(new Job("member", 3))))
			.onComplete(QueueEntry.of(new Job("complete", 0)))
			.onSuccess(QueueEntry.of(new Job("success", 0)))
			.onDeath(QueueEntry.of(new Job("death", 0))));
		List<QueueMessage<Job>> claimed = QueueTesting.claim(this.queue, 3);
		claimed.get(0).deadLetter("boom");
		QueueMessage<Job> death = QueueTesting.claim(this.queue, 1).get(0);
		assertThat(death.id()).isEqualTo(batch + ":death");
		assertThat(released()).containsExactly("batch death");
		death.ack();
		claimed.get(1).deadLetter("boom again");
		assertThat(this.queue.poll(10, Duration.ZERO)).as("death only once").isEmpty();
		claimed.get(2).ack();
		QueueMessage<Job> complete = QueueTesting.claim(this.queue, 1).get(0);
		assertThat(complete.id()).isEqualTo(batch + ":complete");
		complete.ack();
		assertThat(this.queue.poll(10, Duration.ZERO)).as("no success").isEmpty();
		assertThat(released()).as("each once").containsExactly("batch death", "batch complete");
		BatchProgress progress = this.queue.batchProgress(batch);
		assertThat(progress.succeeded()).isEqualTo(1);
		assertThat(progress.failed()).isEqualTo(2);
		assertThat(progress.pending()).isZero();
		assertThat(this.queue.batchProgress("unknown")).isNull();
	}

	@Test
	void aMemberDeadByItsVisibilityTimeoutIsToldByTheInstanceThatTookItBack() throws Exception {
		RedisQueue<Job> expiring = this.registry.create("expiring",
				QueueTesting.fastSpec().withVisibilityTimeout(Duration.ofMillis(200)).withMaxDeliveries(1), Job.class);
		expiring.enqueueBatch(QueueBatch.of(List.of(QueueEntry.of(new Job("member", 1)))).withId("b"));
		QueueTesting.claim(expiring, 1);
		// Never settled: a later poll takes it back (at most once per poll interval) and dead-letters it.
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (!released().contains("batch complete")) {
			assertThat(System.nanoTime()).as("the member taken back in time").isLessThan(deadline);
			assertThat(expiring.poll(1, Duration.ofMillis(200))).isEmpty();
		}
		assertThat(expiring.batchProgress("b").failed()).isEqualTo(1);
		assertThat(released()).as("each once").containsExactly("batch death", "batch complete");
	}

	/** @return the flow and batch events told so far, in order */
	private List<String> released() {
		return this.recorder.events.stream()
			.filter((event) -> event.startsWith("parent ") || event.startsWith("batch "))
			.toList();
	}

	private void assertNothingLeft() {
		try (RedisConnection connection = redis.connections().getConnection()) {
			for (String part : List.of("workflow", "meta", "payloads", "reasons", "delayed", "ready", "in-flight")) {
				String key = KeyNaming.defaults().key("queue", this.queue.name(), part);
				assertThat(connection.keyCommands().exists(key.getBytes(StandardCharsets.UTF_8))).as(part).isFalse();
			}
		}
	}

}
