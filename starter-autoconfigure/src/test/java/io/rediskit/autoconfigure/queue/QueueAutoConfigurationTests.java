package io.rediskit.autoconfigure.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.support.StartupFailures;
import io.rediskit.queue.Deduplication;
import io.rediskit.queue.EnqueueResult;
import io.rediskit.queue.QueueBatch;
import io.rediskit.queue.QueueEntry;
import io.rediskit.queue.QueueFlow;
import io.rediskit.queue.QueueGroups;
import io.rediskit.queue.QueueListener;
import io.rediskit.queue.QueueListenerContainer;
import io.rediskit.queue.QueueMessage;
import io.rediskit.queue.QueuePriority;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueSpec;
import io.rediskit.queue.RedisQueue;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** Wiring of the queue auto-configurations, and @QueueListener end to end against a real server. */
class QueueAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(DataRedisAutoConfiguration.class,
			RedisKitAutoConfiguration.class, QueueAutoConfiguration.class, QueueMetricsAutoConfiguration.class,
			QueueEndpointAutoConfiguration.class, QueueHealthAutoConfiguration.class);

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(),
				"management.endpoints.web.exposure.include=rediskitqueue");

	@BeforeEach
	void clean() {
		redis.flushAll();
	}

	@Test
	void providesTheQueueBeansWithDefaults() {
		this.runner.withPropertyValues("redis-kit.queue.queues.emails.max-deliveries=3").run((context) -> {
			assertThat(context).hasSingleBean(QueueRegistry.class)
				.hasSingleBean(QueueListenerProcessor.class)
				.hasSingleBean(QueueListenerContainerRegistry.class)
				.hasSingleBean(QueueHealthIndicator.class)
				.hasSingleBean(RedisQueuesEndpoint.class)
				.doesNotHaveBean(MicrometerQueueListener.class);
			RedisQueue<String> emails = context.getBean(QueueRegistry.class).get("emails", String.class);
			assertThat(emails.spec()).isEqualTo(QueueSpec.defaults().withMaxDeliveries(3));
			QueueProperties properties = context.getBean(QueueProperties.class);
			assertThat(properties.getListener().getShutdownTimeout()).isEqualTo(Duration.ofSeconds(10));
			assertThat(properties.getHealth().getMaxOldestDueAge()).isEqualTo(Duration.ofMinutes(5));
		});
	}

	@Test
	void deduplicationBindsPerQueueAndEnqueuesAreCountedByOutcome() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("redis-kit.queue.queues.emails.deduplication=debounce",
					"redis-kit.queue.queues.emails.deduplication-window=30s",
					"redis-kit.queue.queues.orders.deduplication=until-started")
			.run((context) -> {
				QueueRegistry registry = context.getBean(QueueRegistry.class);
				RedisQueue<String> emails = registry.get("emails", String.class);
				assertThat(emails.spec().deduplication()).isEqualTo(Deduplication.debounce(Duration.ofSeconds(30)));
				assertThat(registry.get("orders", String.class).spec().deduplication())
					.isEqualTo(Deduplication.UNTIL_STARTED);
				QueueEntry<String> entry = QueueEntry.of("hello").withId("welcome-7").withDelay(Duration.ofMinutes(1));
				assertThat(emails.tryEnqueue(entry).outcome()).isEqualTo(EnqueueResult.Outcome.ENQUEUED);
				assertThat(emails.tryEnqueue(entry).outcome()).isEqualTo(EnqueueResult.Outcome.REPLACED);
				emails.purge();
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("rediskit.queue.enqueues").tags("queue", "emails", "outcome", "enqueued")
					.counter().count()).isEqualTo(1);
				assertThat(meters.get("rediskit.queue.enqueues").tags("queue", "emails", "outcome", "replaced")
					.counter().count()).isEqualTo(1);
			});
	}

	@Test
	void aQueueThatIsNotConfiguredIsToldTheClosestConfiguredOne() {
		this.runner.withPropertyValues("redis-kit.queue.queues.reports.max-deliveries=3").run((context) -> {
			QueueRegistry registry = context.getBean(QueueRegistry.class);
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> registry.get("report", String.class))
				.withMessage("No queue named 'report' (did you mean 'reports'?): configure redis-kit.queue.queues.report"
						+ " or create it in code first");
		});
	}

	@Test
	void groupsBindPerQueue() {
		this.runner
			.withPropertyValues("redis-kit.queue.queues.tenants.groups.enabled=true",
					"redis-kit.queue.queues.tenants.groups.max-in-flight=3",
					"redis-kit.queue.queues.tenants.groups.max-in-flight-by-group.acme=1",
					"redis-kit.queue.queues.tenants.groups.rate-limit=100",
					"redis-kit.queue.queues.tenants.groups.rate-limit-period=1m",
					"redis-kit.queue.queues.tenants.groups.rate-limit-by-group.acme=10",
					"redis-kit.queue.queues.emails.max-deliveries=3")
			.run((context) -> {
				QueueRegistry registry = context.getBean(QueueRegistry.class);
				assertThat(registry.get("tenants", String.class).spec().groups())
					.isEqualTo(new QueueGroups(3, Map.of("acme", 1), 100, Duration.ofMinutes(1), Map.of("acme", 10L)));
				assertThat(registry.get("emails", String.class).spec().groups()).isNull();
				RedisQueue<String> tenants = registry.get("tenants", String.class);
				tenants.enqueue(QueueEntry.of("report").withGroup("acme"));
				assertThat(tenants.stats().ready()).isEqualTo(1);
				tenants.purge();
			});
	}

	@Test
	void aListenersReturnValueIsWhatTheFlowsParentReadsAndFlowsAndBatchesAreCounted() {
		this.runner.withUserConfiguration(FlowListeners.class)
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("redis-kit.queue.queues.reports.poll-interval=100ms")
			.run((context) -> {
				RedisQueue<String> reports = context.getBean(QueueRegistry.class).get("reports", String.class);
				reports.enqueueFlow(QueueFlow.of(QueueEntry.of("summary"),
						List.of(QueueEntry.of("ab"), QueueEntry.of("abc"), QueueEntry.of("abcd"))));
				String batch = reports.enqueueBatch(QueueBatch.of(List.of(QueueEntry.of("x"), QueueEntry.of("y")))
					.onSuccess(QueueEntry.of("batch done")));
				FlowListeners listeners = context.getBean(FlowListeners.class);
				await(() -> listeners.totals.contains(9) && listeners.callbacks.contains(batch + ":success"));
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("rediskit.queue.workflows").tags("queue", "reports", "kind", "flow").counter()
					.count()).isEqualTo(1);
				assertThat(meters.get("rediskit.queue.workflows").tags("queue", "reports", "kind", "batch").counter()
					.count()).isEqualTo(1);
				// Counted when the settling's reply reaches this instance, which may be just after the handlers saw its effect.
				await(() -> workflowEvents(meters, "batch", "success") > 0 && workflowEvents(meters, "batch", "complete") > 0
						&& workflowEvents(meters, "flow", "all-finished") > 0);
				assertThat(workflowEvents(meters, "flow", "all-finished")).isEqualTo(1);
				assertThat(workflowEvents(meters, "batch", "complete")).isEqualTo(1);
				assertThat(workflowEvents(meters, "batch", "success")).isEqualTo(1);
				assertThat(workflowEvents(meters, "batch", "death")).isZero();
			});
	}

	private static double workflowEvents(MeterRegistry meters, String kind, String event) {
		Counter counter = meters.find("rediskit.queue.workflow.events")
			.tags("queue", "reports", "kind", kind, "event", event)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	@Test
	void prioritiesAndLimitsBindPerQueue() {
		this.runner.withPropertyValues("redis-kit.queue.queues.emails.default-priority=low",
				"redis-kit.queue.queues.emails.max-in-flight=5", "redis-kit.queue.queues.emails.rate-limit=100",
				"redis-kit.queue.queues.emails.rate-limit-period=2s").run((context) -> {
					RedisQueue<String> emails = context.getBean(QueueRegistry.class).get("emails", String.class);
					assertThat(emails.spec()).isEqualTo(QueueSpec.defaults()
						.withDefaultPriority(QueuePriority.LOW)
						.withMaxInFlight(5)
						.withRateLimit(100, Duration.ofSeconds(2)));
				});
	}

	@Test
	void theEndpointPausesAndResumesAQueueOrOneListenerAndTheMetricsShowIt() {
		this.runner.withUserConfiguration(Listeners.class)
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("redis-kit.queue.queues.emails.poll-interval=100ms",
					"redis-kit.queue.queues.orders.poll-interval=100ms")
			.run((context) -> {
				RedisQueuesEndpoint endpoint = context.getBean(RedisQueuesEndpoint.class);
				QueueRegistry registry = context.getBean(QueueRegistry.class);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				context.getBean(QueueMetrics.class).bindTo(meters);
				assertThat(endpoint.pause("emails", "pause", null)).containsEntry("paused", true);
				assertThat(registry.get("emails", Email.class).isPaused()).isTrue();
				assertThat(endpoint.queue(SecurityContext.NONE, "emails").stats().paused()).isTrue();
				assertThat(meters.get("rediskit.queue.paused").tag("queue", "emails").gauge().value()).isEqualTo(1);
				assertThat(endpoint.pause("emails", "resume", null)).containsEntry("paused", false);
				// One listener, by its id: <bean name>.<method name> unless @QueueListener names one.
				QueueListenerContainer<?> orders = context.getBean(QueueListenerContainerRegistry.class)
					.getContainers().stream().filter((c) -> c.getQueue().name().equals("orders")).findFirst()
					.orElseThrow();
				assertThat(orders.getListenerId()).endsWith("Listeners.cancel");
				assertThat(endpoint.pause("orders", "pause", orders.getListenerId())).containsEntry("paused", true)
					.as("the listener's id, sent by the caller, is not echoed").doesNotContainKey("listener");
				assertThat(orders.isPaused()).isTrue();
				assertThat(registry.get("orders", Order.class).isPaused()).as("the queue itself").isFalse();
				registry.get("orders", Order.class).enqueue(new Order(9));
				Listeners listeners = context.getBean(Listeners.class);
				assertThat(endpoint.pause("orders", "resume", orders.getListenerId())).containsEntry("paused", false);
				await(() -> listeners.orders.contains(9L));
				assertThatExceptionOfType(InvalidEndpointRequestException.class)
					.isThrownBy(() -> endpoint.pause("orders", "stop", null));
				new MicrometerQueueListener(meters).onHeldBack("orders", "rate-limit", 3);
				assertThat(meters.get("rediskit.queue.held.back").tags("queue", "orders", "reason", "rate-limit")
					.counter().count()).isEqualTo(3);
			});
	}

	@Test
	void backsOffWhenDisabled() {
		this.runner.withPropertyValues("redis-kit.queue.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(QueueRegistry.class)
				.doesNotHaveBean(QueueListenerProcessor.class)
				.doesNotHaveBean(RedisQueuesEndpoint.class));
	}

	@Test
	void theApplicationsBeansWin() {
		this.runner.withUserConfiguration(OwnRegistry.class).run((context) -> {
			assertThat(context.getBean(QueueRegistry.class)).isSameAs(context.getBean("ownRegistry"));
		});
	}

	@Test
	void metricsWhenThereIsAMeterRegistry() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("redis-kit.queue.queues.emails.visibility-timeout=10s")
			.run((context) -> {
				assertThat(context).hasSingleBean(MicrometerQueueListener.class).hasSingleBean(QueueMetrics.class);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				// Spring Boot's metrics auto-configuration binds every MeterBinder bean; this runner has none.
				context.getBean(QueueMetrics.class).bindTo(meters);
				RedisQueue<String> emails = context.getBean(QueueRegistry.class).get("emails", String.class);
				emails.enqueue("hello");
				emails.enqueue("later", Duration.ofMinutes(1));
				emails.poll(1, Duration.ofSeconds(5)).get(0).ack();
				assertThat(meters.get("rediskit.queue.enqueued").tag("queue", "emails").counter().count()).isEqualTo(2);
				emails.cancel(emails.enqueue("cancelled", Duration.ofMinutes(1)));
				emails.enqueue(QueueEntry.of("expiring").withTimeToLive(Duration.ofMillis(1)));
				// Real time passes on the server's clock too: the 1 ms time to live is over after this.
				Thread.sleep(20);
				assertThat(emails.pollAsync(1).toCompletableFuture().join()).isEmpty();
				assertThat(meters.get("rediskit.queue.cancelled").tag("queue", "emails").counter().count()).isEqualTo(1);
				await(() -> meters.get("rediskit.queue.expired").tag("queue", "emails").counter().count() == 1);
				assertThat(meters.get("rediskit.queue.acked").tag("queue", "emails").counter().count()).isEqualTo(1);
				assertThat(meters.get("rediskit.queue.lateness").tag("queue", "emails").timer().count()).isEqualTo(1);
				assertThat(meters.get("rediskit.queue.messages").tags("queue", "emails", "state", "delayed").gauge()
					.value()).isEqualTo(1);
			});
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = {
			"redis-kit.queue.queues.emails.max-deliveries=0|redis-kit.queue.queues.emails.max-deliveries must be between 1 and 1000",
			"redis-kit.queue.queues.emails.visibility-timeout=10ms|redis-kit.queue.queues.emails.visibility-timeout must be between",
			"redis-kit.queue.queues.emails.backoff-jitter=2|redis-kit.queue.queues.emails.backoff-jitter must be between 0 and 1",
			"redis-kit.queue.queues.emails.poll-interval=2m|redis-kit.queue.queues.emails.poll-interval must be between",
			"redis-kit.queue.queues.a.b.max-deliveries=3|redis-kit.queue.queues.a",
			"redis-kit.queue.queues.emails.visibilty-timeout=1s|visibilty-timeout",
			"redis-kit.queue.listener.prefetch=-1|redis-kit.queue.listener.prefetch must be between 0 and 999",
			"redis-kit.queue.listener.ack-linger=2s|redis-kit.queue.listener.ack-linger must be between 0 and 1s, was 2000ms",
			"redis-kit.queue.listener.ack-linger=-1ms|redis-kit.queue.listener.ack-linger must be between 0 and 1s, was -1ms",
			"redis-kit.queue.queues.emails.max-in-flight=-1|redis-kit.queue.queues.emails.max-in-flight must be between 0 (no limit) and 1000000",
			"redis-kit.queue.queues.emails.rate-limit=100001|redis-kit.queue.queues.emails.rate-limit must be between 0 (no limit) and 100000",
			"redis-kit.queue.queues.emails.rate-limit-period=0s|redis-kit.queue.queues.emails.rate-limit-period must be between",
			"redis-kit.queue.queues.emails.default-priority=urgent|urgent",
			"redis-kit.queue.queues.emails.deduplication=throttle|redis-kit.queue.queues.emails.deduplication-window must be between 1ms and 36500d for throttle",
			"redis-kit.queue.queues.emails.deduplication-window=5s|redis-kit.queue.queues.emails.deduplication-window is only for throttle and debounce",
			"redis-kit.queue.queues.emails.deduplication=forever|forever",
			"redis-kit.queue.queues.emails.groups.max-in-flight=-1|redis-kit.queue.queues.emails.groups.max-in-flight must be between 0 (no limit) and 1000000",
			"redis-kit.queue.queues.emails.groups.max-in-flight-by-group.acme=-2|redis-kit.queue.queues.emails.groups.max-in-flight-by-group the limit of group 'acme' must be between 0 (no limit) and 1000000",
			"redis-kit.queue.queues.emails.groups.rate-limit=100001|redis-kit.queue.queues.emails.groups.rate-limit must be between 0 (no limit) and 100000",
			"redis-kit.queue.queues.emails.groups.rate-limit-period=0s|redis-kit.queue.queues.emails.groups.rate-limit-period must be between",
			"redis-kit.queue.queues.emails.groups.rate-limit-by-group.acme=-1|redis-kit.queue.queues.emails.groups.rate-limit-by-group the rate limit of group 'acme' must be between 0 (no limit) and 100000" })
	void invalidPropertiesFailStartupNamingTheProperty(String property, String message) {
		this.runner.withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining(message.split(" must")[0]);
			assertThat(stackMessages(context.getStartupFailure())).contains(message);
		});
	}

	@Test
	void aPriorityGivenAsANumberFailsStartupNamingThePropertyInsteadOfBeingReadAsAPosition() {
		// YAML gives the number 1, which Spring's converters would read as the enum's position: normal.
		this.runner.withInitializer((context) -> context.getEnvironment().getPropertySources().addFirst(
				new MapPropertySource("yaml", Map.of("redis-kit.queue.queues.emails.default-priority", 1))))
			.run((context) -> assertThat(StartupFailures.analyze(context).getDescription())
				.contains("Property: redis-kit.queue.queues.emails.default-priority\n    Value: \"1\"\n")
				.contains("Reason: redis-kit.queue.queues.emails.default-priority must be one of high, normal, low, was"
						+ " the number 1: priorities are named, not numbered"));
		this.runner.withPropertyValues("redis-kit.queue.queues.emails.default-priority=0")
			.run((context) -> assertThat(StartupFailures.analyze(context).getDescription())
				.contains("redis-kit.queue.queues.emails.default-priority"));
		this.runner.withPropertyValues("redis-kit.queue.queues.emails.default-priority=high")
			.run((context) -> assertThat(context.getBean(QueueRegistry.class).get("emails", String.class).spec()
				.defaultPriority()).isEqualTo(QueuePriority.HIGH));
	}

	@Test
	void aRateLimitPeriodWithoutARateLimitFailsStartupNamingTheProperty() {
		this.runner.withPropertyValues("redis-kit.queue.queues.emails.rate-limit-period=2s")
			.run((context) -> assertThat(StartupFailures.analyze(context).getDescription())
				.contains("Property: redis-kit.queue.queues.emails.rate-limit-period\n    Value: \"2s\"\n")
				.contains("Reason: redis-kit.queue.queues.emails.rate-limit-period is set without a rate-limit, and alone"
						+ " limits nothing: set redis-kit.queue.queues.emails.rate-limit (deliveries per period) or"
						+ " remove it"));
	}

	@Test
	void aGroupsRateLimitPeriodWithoutAGroupRateLimitFailsStartupNamingTheProperty() {
		this.runner
			.withPropertyValues("redis-kit.queue.queues.tenants.groups.enabled=true",
					"redis-kit.queue.queues.tenants.groups.rate-limit-period=1m",
					"redis-kit.queue.queues.tenants.rate-limit=5")
			.run((context) -> assertThat(StartupFailures.analyze(context).getDescription())
				.contains("Property: redis-kit.queue.queues.tenants.groups.rate-limit-period\n    Value: \"1m\"\n")
				.contains("Reason: redis-kit.queue.queues.tenants.groups.rate-limit-period is set without a rate-limit or"
						+ " rate-limit-by-group, and alone limits nothing: set"
						+ " redis-kit.queue.queues.tenants.groups.rate-limit (a group's deliveries per period) or remove it"));
		this.runner
			.withPropertyValues("redis-kit.queue.queues.tenants.groups.enabled=true",
					"redis-kit.queue.queues.tenants.groups.rate-limit-period=1m",
					"redis-kit.queue.queues.tenants.groups.rate-limit-by-group.acme=5")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void theEndpointReportsWaitingParentsBatchesInProgressAndTheBusiestGroups() {
		this.runner.withPropertyValues("redis-kit.queue.queues.tenants.groups.enabled=true",
				"redis-kit.queue.queues.tenants.groups.max-in-flight=2",
				"redis-kit.queue.queues.tenants.groups.max-in-flight-by-group.acme=5",
				"redis-kit.queue.queues.tenants.groups.rate-limit=10",
				"redis-kit.queue.queues.tenants.groups.rate-limit-period=1m",
				"management.endpoint.rediskitqueue.show-values=always").run((context) -> {
			RedisQueue<String> tenants = context.getBean(QueueRegistry.class).get("tenants", String.class);
			List<QueueEntry<String>> entries = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				entries.add(QueueEntry.of("acme " + i).withGroup("acme"));
			}
			entries.add(QueueEntry.of("globex").withGroup("globex"));
			tenants.enqueueAll(entries);
			tenants.enqueueFlow(QueueFlow.of(QueueEntry.of("parent").withId("p"),
					List.of(QueueEntry.of("child").withDelay(Duration.ofHours(1)))));
			tenants.enqueueBatch(QueueBatch.of(List.of(QueueEntry.of("member").withDelay(Duration.ofHours(1))))
				.withId("b"));
			RedisQueuesEndpoint endpoint = context.getBean(RedisQueuesEndpoint.class);
			assertThat(endpoint.queues().queues().get("tenants").waitingParents()).isEqualTo(1);
			RedisQueuesEndpoint.QueueDescriptor described = endpoint.queue(SecurityContext.NONE, "tenants");
			assertThat(described.stats().waitingParents()).isEqualTo(1);
			assertThat(described.stats().batchesInProgress()).isEqualTo(1);
			assertThat(described.batches()).singleElement().satisfies((batch) -> {
				assertThat(batch.id()).isEqualTo("b");
				assertThat(batch.total()).isEqualTo(1);
				assertThat(batch.pending()).isEqualTo(1);
			});
			assertThat(described.groups()).containsExactly(
					new RedisQueuesEndpoint.GroupDescriptor("acme", 3, 0, 5, 10, "1m"),
					new RedisQueuesEndpoint.GroupDescriptor("globex", 1, 0, 2, 10, "1m"));
			tenants.purge();
		});
	}

	@Test
	void aQueueListenerMethodConsumesItsQueueAndTheEndpointAndHealthReportIt() {
		this.runner.withUserConfiguration(Listeners.class)
			.withPropertyValues("redis-kit.queue.queues.emails.poll-interval=100ms",
					"redis-kit.queue.queues.orders.max-deliveries=2", "redis-kit.queue.queues.orders.initial-backoff=10ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				QueueRegistry registry = context.getBean(QueueRegistry.class);
				Listeners listeners = context.getBean(Listeners.class);
				registry.get("emails", Email.class)
					.enqueue(QueueEntry.of(new Email("a@example.com", "hi")).withHeader("trace-id", "4bf92f35"));
				registry.get("orders", Order.class).enqueue(new Order(7));
				registry.get("orders", Order.class).enqueue(QueueEntry.of(new Order(-1)).withHeader("tenant", "acme"));
				await(() -> listeners.sent.contains("a@example.com") && listeners.traces.contains("4bf92f35")
						&& listeners.orders.contains(7L)
						&& registry.get("orders", Order.class).stats().dead() == 1);
				RedisQueuesEndpoint endpoint = context.getBean(RedisQueuesEndpoint.class);
				assertThat(endpoint.queues().queues()).containsKeys("emails", "orders");
				RedisQueuesEndpoint.QueueDescriptor orders = endpoint.queue(SecurityContext.NONE, "orders");
				assertThat(orders.stats().dead()).isEqualTo(1);
				assertThat(orders.deadLetters().get(0).reason()).contains("IllegalArgumentException: negative order -1");
				// Not shown by default: the endpoint's show-values is never.
				assertThat(orders.deadLetters().get(0).headers()).isNull();
				Health health = context.getBean(QueueHealthIndicator.class).health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(endpoint.redrive("orders", 10)).containsEntry("redriven", 1L);
				// Redriven, the poison order fails again and comes back: then it alone is redriven by its id.
				await(() -> registry.get("orders", Order.class).stats().dead() == 1);
				String poison = endpoint.queue(SecurityContext.NONE, "orders").deadLetters().get(0).id();
				assertThat(endpoint.redriveDeadLetter("orders", "dead-letters", poison)).containsEntry("redriven", true);
				await(() -> registry.get("orders", Order.class).stats().dead() == 1);
				assertThat(endpoint.deleteDeadLetter("orders", "dead-letters", "unknown")).containsEntry("deleted", false);
				assertThatExceptionOfType(InvalidEndpointRequestException.class)
					.isThrownBy(() -> endpoint.deleteDeadLetter("orders", "letters", poison));
				String later = registry.get("orders", Order.class).enqueue(new Order(8), Duration.ofMinutes(1));
				assertThat(endpoint.cancel("orders", later)).containsEntry("cancelled", true);
				assertThat(endpoint.cancel("orders", later)).containsEntry("cancelled", false);
				assertThat(endpoint.purge("orders")).containsEntry("purged", 1L);
			});
	}

	@Test
	void containersPollOnTheApplicationsSchedulerAndStopTogether() {
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.setThreadNamePrefix("app-scheduler-");
		this.runner.withUserConfiguration(Listeners.class)
			.withBean("taskScheduler", ThreadPoolTaskScheduler.class, () -> scheduler)
			.withPropertyValues("redis-kit.queue.queues.emails.poll-interval=100ms",
					"redis-kit.queue.queues.orders.max-deliveries=2", "redis-kit.queue.listener.prefetch=3")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				QueueListenerContainerRegistry containers = context.getBean(QueueListenerContainerRegistry.class);
				assertThat(containers.getContainers()).hasSize(2).allMatch(QueueListenerContainer::isRunning)
					.allMatch((container) -> container.getPrefetch() == 3);
				context.getBean(QueueRegistry.class).get("emails", Email.class).enqueue(new Email("b@example.com", "hi"));
				Listeners listeners = context.getBean(Listeners.class);
				await(() -> listeners.sent.contains("b@example.com"));
				assertThat(scheduler.getScheduledThreadPoolExecutor().getCompletedTaskCount()).isPositive();
				List<QueueListenerContainer<?>> running = containers.getContainers();
				containers.stop();
				assertThat(running).noneMatch(QueueListenerContainer::isRunning);
				assertThat(containers.isRunning()).isFalse();
			});
	}

	@Test
	void handlersRunOnTheApplicationsTaskExecutorWhenAsked() {
		ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
		executor.setThreadNamePrefix("app-task-");
		executor.setCorePoolSize(4);
		this.runner.withUserConfiguration(Threads.class)
			.withBean("applicationTaskExecutor", ThreadPoolTaskExecutor.class, () -> executor)
			.withPropertyValues("redis-kit.queue.queues.emails.poll-interval=100ms",
					"redis-kit.queue.listener.executor=application")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				context.getBean(QueueRegistry.class).get("emails", Email.class).enqueue(new Email("c@example.com", "hi"));
				Threads threads = context.getBean(Threads.class);
				await(() -> !threads.names.isEmpty());
				assertThat(threads.names).allMatch((name) -> name.startsWith("app-task-"));
			});
	}

	@Test
	void theApplicationExecutorWithoutTheBeanFailsStartupNamingTheProperty() {
		this.runner.withUserConfiguration(Threads.class)
			.withPropertyValues("redis-kit.queue.queues.emails.poll-interval=100ms",
					"redis-kit.queue.listener.executor=application")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(stackMessages(context.getStartupFailure()))
					.contains("redis-kit.queue.listener.executor=application needs");
			});
	}

	@Test
	void anAckLingerOverATenthOfTheVisibilityTimeoutFailsStartupNamingTheProperty() {
		this.runner.withUserConfiguration(Threads.class)
			.withPropertyValues("redis-kit.queue.queues.emails.visibility-timeout=1s",
					"redis-kit.queue.listener.ack-linger=200ms")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(stackMessages(context.getStartupFailure()))
					.contains("redis-kit.queue.listener.ack-linger for ")
					.contains("ackLinger must be between 0 and 100ms (a tenth of the visibility timeout of queue 'emails',"
							+ " 1000ms, and at most 1000ms), was 200ms");
			});
	}

	@Test
	void anUnconfiguredQueueFailsStartupNamingTheMethod() {
		this.runner.withUserConfiguration(UnknownQueue.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(stackMessages(context.getStartupFailure())).contains("UnknownQueue.consume")
				.contains("redis-kit.queue.queues.nowhere");
		});
	}

	@Test
	void aBacklogIsADetailThatLeavesTheStatusUpUnlessTheApplicationSaysOtherwise() throws Exception {
		// An instance that only enqueues must not leave its load balancer because consumers elsewhere are slow.
		this.runner.withPropertyValues("redis-kit.queue.queues.idle.poll-interval=1s",
				"redis-kit.queue.health.max-oldest-due-age=0s").run((context) -> {
					context.getBean(QueueRegistry.class).get("idle", String.class).enqueue("waiting");
					Thread.sleep(1100);
					Health health = context.getBean(QueueHealthIndicator.class).health();
					assertThat(health.getStatus()).isEqualTo(Status.UP);
					assertThat(health.getDetails()).containsKey("late");
					assertThat(health.getDetails().get("late").toString()).matches(
							"\\{idle=oldest due message waited \\d+s, more than 0s}");
				});
		redis.flushAll();
		this.runner.withPropertyValues("redis-kit.queue.queues.idle.poll-interval=1s",
				"redis-kit.queue.health.max-oldest-due-age=0s", "redis-kit.queue.health.late-status=DOWN").run((context) -> {
					context.getBean(QueueRegistry.class).get("idle", String.class).enqueue("waiting");
					Thread.sleep(1100);
					Health health = context.getBean(QueueHealthIndicator.class).health();
					assertThat(health.getStatus()).isEqualTo(Status.DOWN);
					assertThat(health.getDetails()).containsKey("late");
				});
	}

	private static String stackMessages(Throwable failure) {
		StringBuilder messages = new StringBuilder();
		for (Throwable t = failure; t != null; t = t.getCause()) {
			messages.append(t.getMessage()).append('\n');
		}
		return messages.toString();
	}

	private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime()).as("condition met in time").isLessThan(deadline);
			Thread.sleep(20);
		}
	}

	record Email(String to, String subject) {
	}

	record Order(long id) {
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnRegistry {

		@Bean
		QueueRegistry ownRegistry(RedisConnectionFactory connectionFactory) {
			return new QueueRegistry(connectionFactory, JsonMapper.builder().build());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		final Set<String> sent = ConcurrentHashMap.newKeySet();

		final Set<String> traces = ConcurrentHashMap.newKeySet();

		final Set<Long> orders = ConcurrentHashMap.newKeySet();

		@QueueListener(queue = "emails", concurrency = "${emails.concurrency:2}")
		void send(Email email, Map<String, String> headers) {
			this.sent.add(email.to());
			if (headers.containsKey("trace-id")) {
				this.traces.add(headers.get("trace-id"));
			}
		}

		@QueueListener(queue = "orders")
		void cancel(QueueMessage<Order> message) {
			if (message.payload().id() < 0) {
				throw new IllegalArgumentException("negative order " + message.payload().id());
			}
			this.orders.add(message.payload().id());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FlowListeners {

		final Set<Integer> totals = ConcurrentHashMap.newKeySet();

		final Set<String> callbacks = ConcurrentHashMap.newKeySet();

		@QueueListener(queue = "reports", concurrency = "2")
		Integer report(QueueMessage<String> message) {
			if (message.headers().containsKey(QueueFlow.PARENT_HEADER)) {
				return message.payload().length();
			}
			if (message.payload().equals("summary")) {
				this.totals.add(message.children().results(Integer.class).values().stream().mapToInt(Integer::intValue)
					.sum());
			}
			else if (message.headers().containsKey(QueueBatch.EVENT_HEADER)) {
				this.callbacks.add(message.id());
			}
			return null;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Threads {

		final Set<String> names = ConcurrentHashMap.newKeySet();

		@QueueListener(queue = "emails")
		void send(Email email) {
			this.names.add(Thread.currentThread().getName());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnknownQueue {

		@QueueListener(queue = "nowhere")
		void consume(String text) {
		}

	}


}
