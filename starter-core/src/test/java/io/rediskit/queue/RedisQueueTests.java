package io.rediskit.queue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.queue.QueueTesting.Recorder;
import io.rediskit.support.RedisTestServer;
import io.rediskit.testsupport.RedisServerProcess;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.DefaultTyping;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.jsontype.BasicPolymorphicTypeValidator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** {@link RedisQueue}'s synchronous API against a real server. */
class RedisQueueTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final java.util.concurrent.atomic.AtomicBoolean GADGET_INITIALISED = new java.util.concurrent.atomic.AtomicBoolean();

	RedisServerProcess server;

	Recorder recorder = new Recorder();

	QueueRegistry registry;

	RedisQueue<Job> queue;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.server = redis.server();
		this.registry = QueueTesting.registry(redis, this.recorder);
		this.queue = this.registry.create("jobs", QueueTesting.fastSpec(), Job.class);
	}

	@AfterEach
	void tearDown() {
		this.registry.close();
	}

	@Test
	void pausesAndResumesAreLoggedNamingTheQueueOrTheListener() {
		ListAppender<ILoggingEvent> log = new ListAppender<>();
		log.start();
		Logger queueLogger = (Logger) LoggerFactory.getLogger(ScriptedRedisQueue.class);
		queueLogger.addAppender(log);
		try {
			this.queue.pause();
			this.queue.resume();
			this.registry.pauseListener("jobs", "mailer.send");
			this.registry.resumeListener("jobs", "mailer.send");
		}
		finally {
			queueLogger.detachAppender(log);
		}
		// Was "Queue 'jobs'  paused" (two spaces) and "Queue 'jobs' listener mailer.send of it paused".
		assertThat(log.list).extracting(ILoggingEvent::getFormattedMessage).containsExactly("Queue 'jobs' paused",
				"Queue 'jobs' resumed", "Listener 'mailer.send' of queue 'jobs' paused",
				"Listener 'mailer.send' of queue 'jobs' resumed");
	}

	@Test
	void aGroupIsValidatedAtEnqueueAndNeedsAQueueWithGroups() throws Exception {
		assertThatIllegalArgumentException().isThrownBy(() -> QueueEntry.of(new Job("a", 1)).withGroup(""));
		assertThatIllegalArgumentException().isThrownBy(() -> QueueEntry.of(new Job("a", 1)).withGroup("a\nb"))
			.withMessageContaining("control characters");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queue.enqueue(QueueEntry.of(new Job("a", 1)).withGroup("tenant-1")))
			.withMessageContaining("has no groups");
		RedisQueue<Job> grouped = this.registry.create("grouped",
				QueueTesting.fastSpec().withGroups(QueueGroups.roundRobin()), Job.class);
		assertThatIllegalArgumentException().isThrownBy(() -> grouped
			.enqueue(QueueEntry.of(new Job("a", 1)).withGroup("tenant-1").withPriority(QueuePriority.HIGH)));
		String id = grouped.enqueue(QueueEntry.of(new Job("a", 1)).withGroup("tenant-1"));
		String plain = grouped.enqueue(new Job("b", 2));
		assertThat(grouped.stats().ready()).isEqualTo(2);
		List<QueueMessage<Job>> messages = grouped.poll(10, Duration.ofSeconds(5));
		assertThat(messages).extracting(QueueMessage::id).containsExactlyInAnyOrder(id, plain);
		messages.forEach(QueueMessage::ack);
		assertThat(grouped.stats().ready()).isZero();
	}

	@Test
	void enqueuePollAckLeavesNoMessageDataBehind() throws Exception {
		String id = this.queue.enqueue(new Job("a", 1));
		List<QueueMessage<Job>> messages = this.queue.poll(10, Duration.ofSeconds(5));
		assertThat(messages).hasSize(1);
		QueueMessage<Job> message = messages.get(0);
		assertThat(message.id()).isEqualTo(id);
		assertThat(message.payload()).isEqualTo(new Job("a", 1));
		assertThat(message.deliveryCount()).isEqualTo(1);
		assertThat(message.deliveredAt()).isAfterOrEqualTo(message.dueAt());
		assertThat(this.queue.stats()).isEqualTo(new QueueStats(0, 0, 1, 0, Duration.ZERO));
		message.ack();
		assertThat(this.queue.stats().total()).isZero();
		assertThat(this.server.command("KEYS", "rk:queue:{jobs}:*")).asList()
			.allMatch((key) -> key.equals("rk:queue:{jobs}:settled") || ((String) key).startsWith("rk:queue:{jobs}:claim:"));
		assertThat(this.recorder.events).containsExactly("enqueued 1", "delivered 1", "acked");
	}

	@Test
	void aDelayedMessageIsDeliveredWhenDueNotBefore() throws Exception {
		this.queue.enqueue(new Job("later", 1), Duration.ofMillis(700));
		assertThat(this.queue.poll(1, Duration.ZERO)).isEmpty();
		assertThat(this.queue.stats().delayed()).isEqualTo(1);
		List<QueueMessage<Job>> messages = this.queue.poll(1, Duration.ofSeconds(10));
		assertThat(messages).hasSize(1);
		QueueMessage<Job> message = messages.get(0);
		assertThat(message.deliveredAt()).isAfterOrEqualTo(message.dueAt());
		message.ack();
	}

	@Test
	void enqueueAtAPastTimeIsDueNow() throws Exception {
		this.queue.enqueueAt(new Job("past", 1), Instant.now().minusSeconds(60));
		assertThat(this.queue.poll(1, Duration.ofSeconds(5))).hasSize(1);
	}

	@Test
	void aCallerChosenIdDeduplicatesWhileTheMessageIsHeld() throws Exception {
		QueueEntry<Job> entry = QueueEntry.of(new Job("once", 1)).withId("order-42").withDelay(Duration.ofMinutes(5));
		assertThat(this.queue.enqueue(entry)).isEqualTo("order-42");
		assertThat(this.queue.enqueue(entry.withDelay(Duration.ZERO))).isEqualTo("order-42");
		assertThat(this.queue.stats()).isEqualTo(new QueueStats(1, 0, 0, 0, Duration.ZERO));
		assertThat(this.recorder.events).containsExactly("enqueued 1", "duplicate 1");
		assertThat(this.queue.cancel("order-42")).isTrue();
		// Gone: the id can be used again.
		this.queue.enqueue(entry.withDelay(Duration.ZERO));
		assertThat(this.queue.poll(5, Duration.ofSeconds(5))).extracting(QueueMessage::id).containsExactly("order-42");
	}

	@Test
	void aBatchIsEnqueuedInOneCallAndClaimedInOrder() throws Exception {
		List<QueueEntry<Job>> entries = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			entries.add(QueueEntry.of(new Job("b", i)));
		}
		List<String> ids = this.queue.enqueueAll(entries);
		assertThat(ids).hasSize(100).doesNotHaveDuplicates();
		List<QueueMessage<Job>> messages = this.queue.poll(100, Duration.ofSeconds(5));
		assertThat(messages).extracting((m) -> m.payload().number())
			.containsExactlyElementsOf(java.util.stream.IntStream.range(0, 100).boxed().toList());
		assertThat(this.recorder.events).startsWith("enqueued 100");
	}

	@Test
	void cancelRemovesUndeliveredMessagesAndDeadLettersOnesInFlight() throws Exception {
		String delayed = this.queue.enqueue(new Job("d", 1), Duration.ofMinutes(1));
		String ready = this.queue.enqueue(new Job("r", 2));
		assertThat(this.queue.cancel(delayed)).isTrue();
		assertThat(this.queue.cancel(delayed)).isFalse();
		QueueMessage<Job> inFlight = this.queue.poll(1, Duration.ofSeconds(5)).get(0);
		assertThat(inFlight.id()).isEqualTo(ready);
		assertThat(this.queue.cancel(ready)).isTrue();
		assertThat(this.queue.cancel("unknown")).isFalse();
		// No container holds it, so nobody was interrupted: the ack that follows still ends it as cancelled.
		inFlight.ack();
		assertThat(this.queue.deadLetters(10)).extracting(DeadLetter::id, DeadLetter::reason)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(ready, DeadLetter.CANCELLED));
		assertThat(this.recorder.events).contains("cancelled", "dead cancelled").doesNotContain("acked");
	}

	@Test
	void aStaleDeliveryCannotBeSettled() throws Exception {
		RedisQueue<Job> shortLived = this.registry.create("short", QueueTesting.fastSpec()
			.withVisibilityTimeout(Duration.ofMillis(300)), Job.class);
		shortLived.enqueue(new Job("s", 1));
		QueueMessage<Job> first = shortLived.poll(1, Duration.ofSeconds(5)).get(0);
		QueueMessage<Job> second = shortLived.poll(1, Duration.ofSeconds(10)).get(0);
		assertThat(second.id()).isEqualTo(first.id());
		assertThat(second.deliveryCount()).isEqualTo(2);
		assertThatExceptionOfType(StaleDeliveryException.class).isThrownBy(first::ack)
			.withMessageContaining("stale");
		assertThatExceptionOfType(StaleDeliveryException.class)
			.isThrownBy(() -> first.extendVisibility(Duration.ofSeconds(1)));
		second.ack();
		assertThat(shortLived.stats().total()).isZero();
		assertThat(this.recorder.events).contains("stale ack", "stale extend");
	}

	@Test
	void aDeliveryIsSettledOnce() throws Exception {
		this.queue.enqueue(new Job("x", 1));
		QueueMessage<Job> message = this.queue.poll(1, Duration.ofSeconds(5)).get(0);
		message.ack();
		assertThatIllegalStateException().isThrownBy(message::ack).withMessageContaining("settled already");
	}

	@Test
	void retryRedeliversAfterTheDelayAndDeadLettersAfterTheLimit() throws Exception {
		RedisQueue<Job> limited = this.registry.create("limited", QueueTesting.fastSpec().withMaxDeliveries(2),
				Job.class);
		String id = limited.enqueue(new Job("r", 1));
		QueueMessage<Job> first = limited.poll(1, Duration.ofSeconds(5)).get(0);
		first.retry(Duration.ofMillis(300));
		assertThat(limited.stats().delayed()).isEqualTo(1);
		QueueMessage<Job> second = limited.poll(1, Duration.ofSeconds(10)).get(0);
		assertThat(second.deliveryCount()).isEqualTo(2);
		assertThat(second.deliveredAt()).isAfterOrEqualTo(first.deliveredAt().plusMillis(300));
		second.retry("still failing");
		assertThat(limited.stats()).isEqualTo(new QueueStats(0, 0, 0, 1, Duration.ZERO));
		List<DeadLetter> dead = limited.deadLetters(10);
		assertThat(dead).hasSize(1);
		assertThat(dead.get(0).id()).isEqualTo(id);
		assertThat(dead.get(0).reason()).isEqualTo("delivery 2 of 2 failed: still failing");
		assertThat(dead.get(0).deliveries()).isEqualTo(2);
		assertThat(dead.get(0).payload()).isEqualTo("{\"name\":\"r\",\"number\":1}");
		assertThat(this.recorder.events).contains("retried 300", "dead delivery 2 of 2 failed: still failing");
		assertThat(limited.redrive(10)).isEqualTo(1);
		QueueMessage<Job> again = limited.poll(1, Duration.ofSeconds(5)).get(0);
		assertThat(again.deliveryCount()).isEqualTo(1);
		again.deadLetter("given up");
		assertThat(limited.deadLetters(1).get(0).reason()).isEqualTo("given up");
		assertThat(limited.purge()).isEqualTo(1);
		assertThat(limited.stats().total()).isZero();
	}

	@Test
	void extendVisibilityKeepsTheDeliveryHidden() throws Exception {
		RedisQueue<Job> shortLived = this.registry.create("short", QueueTesting.fastSpec()
			.withVisibilityTimeout(Duration.ofMillis(500)), Job.class);
		shortLived.enqueue(new Job("e", 1));
		QueueMessage<Job> message = shortLived.poll(1, Duration.ofSeconds(5)).get(0);
		message.extendVisibility(Duration.ofMinutes(1));
		assertThat(shortLived.poll(1, Duration.ofMillis(1500))).isEmpty();
		message.ack();
	}

	@Test
	void aPayloadLargerThanTheLimitIsRefusedAndNothingIsStored() {
		RedisQueue<String> small = this.registry.create("small", QueueTesting.fastSpec().withMaxPayloadSize(1024),
				String.class);
		String tenMegabytes = "x".repeat(10 * 1024 * 1024);
		assertThatExceptionOfType(PayloadTooLargeException.class)
			.isThrownBy(() -> small.enqueue(tenMegabytes))
			.withMessageContaining("10485762 bytes")
			.withMessageContaining("1024 bytes");
		assertThat(this.server.dbSize()).isZero();
	}

	@Test
	void aMapperWithDefaultTypingIsRefused() {
		JsonMapper typing = JsonMapper.builder()
			.activateDefaultTyping(BasicPolymorphicTypeValidator.builder().allowIfBaseType(Object.class).build(),
					DefaultTyping.NON_FINAL)
			.build();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new QueueRegistry(redis.scripts(), redis.connections(),
					io.rediskit.support.KeyNaming.defaults(), typing, List.of(), (name) -> null))
			.withMessageContaining("default typing");
	}

	@Test
	void anUndecodablePayloadIsDeadLetteredWithTheReasonAndNeverHandedOut() throws Exception {
		// Bytes of a Java serialization stream, written by another producer.
		byte[] serialized = { (byte) 0xAC, (byte) 0xED, 0x00, 0x05, 0x73, 0x72 };
		enqueueRaw("jobs", "raw-1", serialized);
		enqueueRaw("jobs", "raw-2", "{\"name\":".getBytes(StandardCharsets.UTF_8));
		this.queue.enqueue(new Job("good", 1));
		List<QueueMessage<Job>> messages = this.queue.poll(10, Duration.ofSeconds(5));
		assertThat(messages).extracting((m) -> m.payload().name()).containsExactly("good");
		awaitDead(this.queue, 2);
		assertThat(this.queue.deadLetters(10)).extracting(DeadLetter::reason)
			.allMatch((reason) -> reason.startsWith("payload cannot be read as " + Job.class.getName()));
	}

	@Test
	void aGadgetNamedInThePayloadIsNeverLoaded() throws Exception {
		RedisQueue<Object> untyped = this.registry.create("untyped", QueueTesting.fastSpec(), Object.class);
		String gadget = "[\"" + Gadget.class.getName() + "\",{\"command\":\"touch /tmp/pwned\"}]";
		String property = "{\"@class\":\"" + Gadget.class.getName() + "\",\"command\":\"x\"}";
		enqueueRaw("untyped", "g1", gadget.getBytes(StandardCharsets.UTF_8));
		enqueueRaw("untyped", "g2", property.getBytes(StandardCharsets.UTF_8));
		enqueueRaw("jobs", "g3", property.getBytes(StandardCharsets.UTF_8));
		List<QueueMessage<Object>> plain = untyped.poll(10, Duration.ofSeconds(5));
		// Read as plain JSON values (a list, a map): data, never a type.
		assertThat(plain).extracting(QueueMessage::payload).allMatch((p) -> p instanceof List || p instanceof java.util.Map);
		// "@class" is an unknown property, ignored as data; the Job lacks its number, so it is dead-lettered.
		assertThat(this.queue.poll(10, Duration.ofMillis(300))).isEmpty();
		awaitDead(this.queue, 1);
		assertThat(this.queue.deadLetters(1).get(0).reason()).startsWith("payload cannot be read as");
		assertThat(GADGET_INITIALISED).as("the gadget class was never initialised").isFalse();
	}

	@Test
	void pollWakesOnANotificationBeforeThePollInterval() throws Exception {
		RedisQueue<Job> slow = this.registry.create("slow", QueueTesting.fastSpec()
			.withPollInterval(Duration.ofMinutes(1)), Job.class);
		CompletableFuture<List<QueueMessage<Job>>> polled = CompletableFuture.supplyAsync(() -> {
			try {
				return slow.poll(1, Duration.ofSeconds(50));
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		// The poller's first claim found nothing and it waits; the enqueue's notification wakes it.
		Thread.sleep(300);
		slow.enqueue(new Job("n", 1));
		assertThat(polled.get(20, TimeUnit.SECONDS)).hasSize(1);
	}

	@Test
	void pollWakesAtTheEarliestDueTimeBeforeThePollInterval() throws Exception {
		RedisQueue<Job> slow = this.registry.create("slow", QueueTesting.fastSpec()
			.withPollInterval(Duration.ofMinutes(1)), Job.class);
		slow.enqueue(new Job("t", 1), Duration.ofMillis(500));
		long start = System.nanoTime();
		assertThat(slow.poll(1, Duration.ofSeconds(50))).hasSize(1);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
	}

	@Test
	void invalidArgumentsThrowAtOnce() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.poll(0, Duration.ZERO));
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.enqueue(new Job("n", 1), Duration.ofMillis(-1)));
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.get("missing", Job.class))
			.withMessageContaining("redis-kit.queue.queues.missing");
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.create("a.b", QueueSpec.defaults(), Job.class));
		assertThatIllegalArgumentException().isThrownBy(() -> QueueEntry.of("x").withId(""));
	}

	private void enqueueRaw(String queueName, String id, byte[] payload) {
		QueueScripts scripts = new QueueScripts(redis.scripts());
		QueueScriptsTests.await(scripts.enqueue(QueueScripts.Keys.of(io.rediskit.support.KeyNaming.defaults(), queueName),
				List.of(new QueueScripts.Outgoing(id, payload, 0, 0)), null));
	}

	private static void awaitDead(RedisQueue<?> queue, long count) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (queue.stats().dead() < count && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		assertThat(queue.stats().dead()).isEqualTo(count);
	}

	/** Stands for a deserialization gadget: loading it would flip the flag. */
	static final class Gadget {

		static {
			GADGET_INITIALISED.set(true);
		}

		public String command;

	}

}
