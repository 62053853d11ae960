package io.rediskit.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ObservationRecorder;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.ScopeRecordingScripts;
import io.rediskit.support.TracingTesting;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import static io.rediskit.queue.QueueListenerContainerTests.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The queue's observations: enqueues and handled messages with their documented tags, and a message's trace
 * context carried from the instance that enqueued it to the one that handles it, through its headers, also on its
 * retries.
 */
class QueueObservationTests {

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
	void enqueuesAndHandledMessagesAreObservedWithTheirDocumentedTags() throws Exception {
		TestObservationRegistry observed = TestObservationRegistry.create();
		QueueRegistry registry = registry(Observations.of(observed, null));
		RedisQueue<Job> queue = registry.create("jobs", QueueTesting.fastSpec(), Job.class);
		AtomicInteger handled = new AtomicInteger();
		start(registry, queue, (message) -> handled.incrementAndGet());
		queue.enqueue(QueueEntry.of(new Job("a", 1)).withHeader("tenant", "t1"));
		queue.enqueueAll(List.of(QueueEntry.of(new Job("b", 2)), QueueEntry.of(new Job("c", 3))));
		awaitTrue(() -> handled.get() == 3 && queue.stats().total() == 0, Duration.ofSeconds(30));
		// Stopped before the ack is sent: a queue left empty has every observation stopped (the outcome is set on stop).
		TestObservationRegistryAssert.assertThat(observed)
			.hasNumberOfObservationsWithNameEqualTo("rediskit.queue.enqueue", 2)
			.hasNumberOfObservationsWithNameEqualTo("rediskit.queue.handle", 3)
			.forAllObservationsWithNameEqualTo("rediskit.queue.enqueue", (observation) -> observation
				.hasLowCardinalityKeyValue("name", "jobs")
				.hasLowCardinalityKeyValue("outcome", "enqueued")
				.doesNotHaveError())
			.forAllObservationsWithNameEqualTo("rediskit.queue.handle", (observation) -> observation
				.hasContextualNameEqualTo("queue handle jobs")
				.hasLowCardinalityKeyValue("name", "jobs")
				.hasLowCardinalityKeyValue("outcome", "ack"));
	}

	@Test
	void aHandledMessageIsInTheTraceThatEnqueuedItOnAnotherInstanceAlsoWhenRetried() throws Exception {
		TracingTesting producer = new TracingTesting();
		TracingTesting consumer = new TracingTesting();
		RedisQueue<Job> sending = registry(producer.observations()).create("jobs", QueueTesting.fastSpec(), Job.class);
		QueueRegistry receiving = registry(consumer.observations());
		RedisQueue<Job> queue = receiving.create("jobs", QueueTesting.fastSpec(), Job.class);
		List<Map<String, String>> headers = new CopyOnWriteArrayList<>();
		start(receiving, queue, (message) -> {
			headers.add(message.headers());
			if (message.deliveryCount() == 1) {
				throw new IllegalStateException("first delivery fails");
			}
		});
		Observation request = Observation.start("request", producer.registry);
		try (Observation.Scope scope = request.openScope()) {
			sending.enqueue(QueueEntry.of(new Job("a", 1)).withHeader("tenant", "t1"));
		}
		request.stop();
		awaitTrue(() -> queue.stats().total() == 0 && consumer.tracer.getSpans().size() == 2,
				Duration.ofSeconds(30));

		SimpleSpan requestSpan = span(producer, "request");
		SimpleSpan enqueueSpan = span(producer, "queue enqueue jobs");
		assertThat(enqueueSpan.getTraceId()).isEqualTo(requestSpan.getTraceId());
		assertThat(enqueueSpan.getParentId()).isEqualTo(requestSpan.getSpanId());
		assertThat(headers).hasSize(2).allSatisfy((carried) -> assertThat(carried)
			.containsEntry("tenant", "t1")
			.containsEntry("traceparent", "00-" + enqueueSpan.getTraceId() + "-" + enqueueSpan.getSpanId() + "-01"));
		// Both deliveries, the failed one and its retry, are children of the enqueue, in the enqueuing trace.
		assertThat(consumer.tracer.getSpans()).hasSize(2).allSatisfy((handle) -> {
			assertThat(handle.getName()).isEqualTo("queue handle jobs");
			assertThat(handle.getTraceId()).isEqualTo(enqueueSpan.getTraceId());
			assertThat(handle.getParentId()).isEqualTo(enqueueSpan.getSpanId());
		});
		assertThat(consumer.tracer.getSpans()).extracting((span) -> span.getTags().get("outcome"))
			.containsExactlyInAnyOrder("retry", "ack");
		assertThat(consumer.tracer.getSpans()).filteredOn((span) -> span.getError() != null)
			.singleElement()
			.satisfies((span) -> assertThat(span.getError()).hasMessage("first delivery fails"));
	}

	@Test
	void aRedrivenDeadLetterIsHandledInTheTraceThatEnqueuedIt() throws Exception {
		TracingTesting producer = new TracingTesting();
		TracingTesting consumer = new TracingTesting();
		QueueSpec spec = QueueTesting.fastSpec().withMaxDeliveries(1);
		RedisQueue<Job> sending = registry(producer.observations()).create("jobs", spec, Job.class);
		QueueRegistry receiving = registry(consumer.observations());
		RedisQueue<Job> queue = receiving.create("jobs", spec, Job.class);
		AtomicInteger deliveries = new AtomicInteger();
		start(receiving, queue, (message) -> {
			if (deliveries.incrementAndGet() == 1) {
				throw new IllegalStateException("dead on its only delivery");
			}
		});
		sending.enqueue(new Job("a", 1));
		awaitTrue(() -> queue.stats().dead() == 1, Duration.ofSeconds(30));
		assertThat(queue.redrive(10)).isEqualTo(1);
		awaitTrue(() -> deliveries.get() == 2 && queue.stats().total() == 0 && consumer.tracer.getSpans().size() == 2,
				Duration.ofSeconds(30));
		SimpleSpan enqueueSpan = span(producer, "queue enqueue jobs");
		assertThat(consumer.tracer.getSpans()).allSatisfy((handle) -> {
			assertThat(handle.getTraceId()).isEqualTo(enqueueSpan.getTraceId());
			assertThat(handle.getParentId()).isEqualTo(enqueueSpan.getSpanId());
		});
	}

	@Test
	void aRecurringRunIsHandledAsAChildOfItsSlotsEnqueue() throws Exception {
		TracingTesting producer = new TracingTesting();
		TracingTesting consumer = new TracingTesting();
		QueueRegistry scheduling = registry(producer.observations());
		scheduling.create("jobs", QueueTesting.fastSpec(), RecurringSlot.class);
		QueueRegistry receiving = registry(consumer.observations());
		RedisQueue<RecurringSlot> queue = receiving.create("jobs", QueueTesting.fastSpec(), RecurringSlot.class);
		List<Map<String, String>> headers = new CopyOnWriteArrayList<>();
		start(receiving, queue, (message) -> headers.add(message.headers()));
		try (RecurringJobs jobs = new RecurringJobs(redis.scripts(), scheduling, List.of())) {
			jobs.add("tick", RecurringJobSpec.fixedRate("jobs", Duration.ofMillis(100)));
			jobs.start();
			awaitTrue(() -> consumer.tracer.getSpans().size() >= 2, Duration.ofSeconds(30));
		}
		// Each run is handled in the trace its slot's enqueue started, as its child: found by its parent's id, since
		// the enqueue's span ends when the script's reply is in, which a fast consumer may beat.
		for (SimpleSpan handle : List.copyOf(consumer.tracer.getSpans())) {
			assertThat(handle.getName()).isEqualTo("queue handle jobs");
			awaitTrue(() -> producer.tracer.getSpans().stream()
				.anyMatch((span) -> span.getSpanId().equals(handle.getParentId())), Duration.ofSeconds(30));
			SimpleSpan enqueue = producer.tracer.getSpans().stream()
				.filter((span) -> span.getSpanId().equals(handle.getParentId()))
				.findFirst()
				.orElseThrow();
			assertThat(enqueue.getName()).isEqualTo("queue enqueue jobs");
			assertThat(enqueue.getTags()).containsEntry("source", "recurring").containsEntry("outcome", "enqueued");
			assertThat(handle.getTraceId()).isEqualTo(enqueue.getTraceId());
		}
		assertThat(headers).allSatisfy((carried) -> assertThat(carried).containsKey("traceparent"));
	}

	@Test
	void aRecurringTickThatFindsItsSlotTakenEndsAsTakenNotAsAnError() throws Exception {
		TestObservationRegistry observed = TestObservationRegistry.create();
		ObservationRecorder recorder = new ObservationRecorder();
		observed.observationConfig().observationHandler(recorder);
		QueueRegistry scheduling = registry(Observations.of(observed, null));
		scheduling.create("jobs", QueueTesting.fastSpec(), RecurringSlot.class);
		// Another instance's messages of the slots of the next 3 s: the script takes those slots and enqueues nothing.
		// A tick that comes late still offers them (within the grace), so a loaded machine only delays the outcome.
		@SuppressWarnings("unchecked")
		List<String> time = (List<String>) redis.server().command("TIME");
		long now = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
		for (long slot = Math.floorDiv(now, 100) * 100 + 100; slot <= now + 3000; slot += 100) {
			redis.server().command("HSET", "rk:queue:{jobs}:meta",
					RecurringSlot.messageId("tick", Instant.ofEpochMilli(slot)), "0|0|");
		}
		ScopeRecordingScripts scripts = new ScopeRecordingScripts(redis.scripts(), observed);
		try (RecurringJobs jobs = new RecurringJobs(scripts, scheduling, List.of())) {
			jobs.add("tick", RecurringJobSpec.fixedRate("jobs", Duration.ofMillis(100)));
			jobs.start();
			awaitTrue(() -> outcomes(recorder).contains("taken") && outcomes(recorder).contains("enqueued"),
					Duration.ofSeconds(60));
		}
		TestObservationRegistryAssert.assertThat(observed)
			.forAllObservationsWithNameEqualTo("rediskit.queue.enqueue", (observation) -> observation
				.hasContextualNameEqualTo("queue enqueue jobs")
				.hasLowCardinalityKeyValue("name", "jobs")
				.hasLowCardinalityKeyValue("source", "recurring")
				.doesNotHaveError());
		assertThat(scripts.dispatched).as("a tick that enqueues sends its script in the enqueue's scope")
			.contains("rediskit.queue.enqueue");
		assertThat(scripts.completed).as("none open on the driver's thread").allMatch("none"::equals);
	}

	private static List<String> outcomes(ObservationRecorder recorder) {
		return recorder.stopped(RedisKitObservation.QUEUE_ENQUEUE).stream().map(ObservationRecorder::outcome).toList();
	}

	private static SimpleSpan span(TracingTesting tracing, String name) {
		return tracing.tracer.getSpans()
			.stream()
			.filter((span) -> name.equals(span.getName()))
			.findFirst()
			.orElseThrow(() -> new AssertionError("No span " + name + " in " + tracing.tracer.getSpans()));
	}

	private QueueRegistry registry(Observations observations) {
		QueueRegistry registry = QueueTesting.registry(redis);
		registry.setObservations(observations);
		this.registries.add(registry);
		return registry;
	}

	private <T> void start(QueueRegistry registry, RedisQueue<T> queue, QueueHandler<T> handler) {
		QueueListenerContainer<T> container = registry.createContainer(queue, handler, 2);
		this.containers.add(container);
		container.start();
	}

	@Test
	void anEnqueuesScriptIsSentInsideItsScopeAndTheScopeDoesNotLeak() throws Exception {
		TestObservationRegistry observed = TestObservationRegistry.create();
		ScopeRecordingScripts scripts = new ScopeRecordingScripts(redis.scripts(), observed);
		QueueRegistry registry = new QueueRegistry(scripts, redis.connections(), KeyNaming.defaults(),
				JsonMapper.builder().build(), List.of(), (name) -> null);
		registry.setObservations(Observations.of(observed, null));
		this.registries.add(registry);
		RedisQueue<Job> queue = registry.create("jobs", QueueTesting.fastSpec(), Job.class);
		scripts.dispatched.clear();
		queue.enqueue(QueueEntry.of(new Job("a", 1)));
		queue.enqueueAll(List.of(QueueEntry.of(new Job("b", 2)), QueueEntry.of(new Job("c", 3))));
		assertThat(scripts.dispatched).containsExactly("rediskit.queue.enqueue", "rediskit.queue.enqueue");
		assertThat(observed.getCurrentObservation()).as("no scope left open on the caller's thread").isNull();
		assertThat(scripts.completed).as("none open on the driver's thread").allMatch("none"::equals);
	}

}
