package io.rediskit.autoconfigure.queue;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.support.StartupFailures;
import io.rediskit.queue.QueueListener;
import io.rediskit.queue.QueueMessage;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueSpec;
import io.rediskit.queue.RedisQueue;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * The delivery policies at {@code redis-kit.queue.<setting>}: the defaults of every queue, a queue's own value
 * winning; bad values at either level fail startup naming the property, and queues deliver by the values they
 * inherit.
 */
@ExtendWith(OutputCaptureExtension.class)
class QueueSharedDefaultsTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(DataRedisAutoConfiguration.class,
			RedisKitAutoConfiguration.class, QueueAutoConfiguration.class);

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(),
				"redis-kit.queue.queues.emails.poll-interval=100ms", "redis-kit.queue.queues.reports.poll-interval=100ms");

	@BeforeEach
	void clean() {
		redis.flushAll();
	}

	@Test
	void withoutDefaultsEveryQueueHasTheBuiltInOnes() {
		this.runner.run((context) -> {
			QueueProperties properties = context.getBean(QueueProperties.class);
			assertThat(properties.getQueues().get("emails").getMaxDeliveries()).isNull();
			assertThat(context.getBean(QueueRegistry.class).get("emails", String.class).spec())
				.isEqualTo(QueueSpec.defaults().withPollInterval(Duration.ofMillis(100)));
		});
	}

	@Test
	void queuesInheritTheGroupsPoliciesAndTheirOwnValuesWin() {
		this.runner
			.withPropertyValues("redis-kit.queue.visibility-timeout=2m", "redis-kit.queue.max-deliveries=4",
					"redis-kit.queue.initial-backoff=5s", "redis-kit.queue.max-backoff=10m",
					"redis-kit.queue.backoff-multiplier=3", "redis-kit.queue.backoff-jitter=0.5",
					"redis-kit.queue.dead-letter-retention=3d", "redis-kit.queue.dead-letter-max-size=500",
					"redis-kit.queue.queues.reports.visibility-timeout=5m", "redis-kit.queue.queues.reports.max-deliveries=2",
					"redis-kit.queue.queues.reports.initial-backoff=1s", "redis-kit.queue.queues.reports.max-backoff=1m",
					"redis-kit.queue.queues.reports.backoff-multiplier=1.5",
					"redis-kit.queue.queues.reports.backoff-jitter=0",
					"redis-kit.queue.queues.reports.dead-letter-retention=1h",
					"redis-kit.queue.queues.reports.dead-letter-max-size=10")
			.run((context) -> {
				QueueRegistry registry = context.getBean(QueueRegistry.class);
				QueueSpec base = QueueSpec.defaults().withPollInterval(Duration.ofMillis(100));
				assertThat(registry.get("emails", String.class).spec()).isEqualTo(base
					.withVisibilityTimeout(Duration.ofMinutes(2))
					.withMaxDeliveries(4)
					.withBackoff(Duration.ofSeconds(5), Duration.ofMinutes(10), 3, 0.5)
					.withDeadLetters(Duration.ofDays(3), 500));
				assertThat(registry.get("reports", String.class).spec()).isEqualTo(base
					.withVisibilityTimeout(Duration.ofMinutes(5))
					.withMaxDeliveries(2)
					.withBackoff(Duration.ofSeconds(1), Duration.ofMinutes(1), 1.5, 0)
					.withDeadLetters(Duration.ofHours(1), 10));
			});
	}

	@Test
	void aQueueMayInheritOneBoundOfItsBackoffAndSetTheOther() {
		// Checked alone, 2h is above the built-in max-backoff (1h); over the inherited 3h it is valid.
		this.runner
			.withPropertyValues("redis-kit.queue.max-backoff=3h", "redis-kit.queue.queues.emails.initial-backoff=2h",
					"redis-kit.queue.initial-backoff=100ms", "redis-kit.queue.queues.reports.max-backoff=500ms")
			.run((context) -> {
				QueueRegistry registry = context.getBean(QueueRegistry.class);
				assertThat(registry.get("emails", String.class).spec().initialBackoff()).isEqualTo(Duration.ofHours(2));
				assertThat(registry.get("emails", String.class).spec().maxBackoff()).isEqualTo(Duration.ofHours(3));
				// Checked alone, 500ms is below the built-in initial-backoff (1s); over the inherited 100ms it is valid.
				assertThat(registry.get("reports", String.class).spec().initialBackoff())
					.isEqualTo(Duration.ofMillis(100));
				assertThat(registry.get("reports", String.class).spec().maxBackoff()).isEqualTo(Duration.ofMillis(500));
			});
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = {
			"redis-kit.queue.visibility-timeout=10ms|redis-kit.queue.visibility-timeout must be between 100ms and 12h, was 10ms",
			"redis-kit.queue.max-deliveries=0|redis-kit.queue.max-deliveries must be between 1 and 1000, was 0",
			"redis-kit.queue.initial-backoff=2h|redis-kit.queue.initial-backoff must be between 0s and 1h, was 2h",
			"redis-kit.queue.max-backoff=31d|redis-kit.queue.max-backoff must be between 0s and 30d, was 31d",
			"redis-kit.queue.backoff-multiplier=0.5|redis-kit.queue.backoff-multiplier must be between 1 and 100, was 0.5",
			"redis-kit.queue.backoff-jitter=2|redis-kit.queue.backoff-jitter must be between 0 and 1, was 2.0",
			"redis-kit.queue.dead-letter-retention=10s|redis-kit.queue.dead-letter-retention must be between 1m and 365d, was 10s",
			"redis-kit.queue.dead-letter-max-size=0|redis-kit.queue.dead-letter-max-size must be between 1 and 100000000, was 0",
			"redis-kit.queue.max-deliveries=many|redis-kit.queue.max-deliveries" })
	void aBadDefaultFailsStartupNamingTheProperty(String property, String reason) {
		this.runner.withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(stackMessages(context.getStartupFailure())).contains(reason);
		});
	}

	@Test
	void aBadDefaultIsReportedAsTheGroupsProperty() {
		this.runner.withPropertyValues("redis-kit.queue.max-deliveries=0")
			.run((context) -> assertThat(StartupFailures.analyze(context).getDescription())
				.contains("Property: redis-kit.queue.max-deliveries\n    Value: \"0\"\n")
				.contains("Reason: redis-kit.queue.max-deliveries must be between 1 and 1000, was 0"));
	}

	@Test
	void aQueuesValueThatOnlyItsInheritedDefaultsRejectFailsStartupNamingWhereTheValueCameFrom() {
		// Its own initial-backoff above the max-backoff it inherits: its own property is at fault.
		this.runner.withPropertyValues("redis-kit.queue.max-backoff=10s", "redis-kit.queue.queues.emails.initial-backoff=1m")
			.run((context) -> assertThat(StartupFailures.analyze(context).getDescription())
				.contains("Property: redis-kit.queue.queues.emails.initial-backoff\n    Value: \"1m\"\n")
				.contains("Reason: redis-kit.queue.queues.emails.initial-backoff must be between 0s and 10s, was 1m"
						+ " (queue 'emails')"));
		// An inherited initial-backoff above its own max-backoff: the default is at fault for this queue.
		this.runner.withPropertyValues("redis-kit.queue.initial-backoff=30s", "redis-kit.queue.queues.reports.max-backoff=10s")
			.run((context) -> assertThat(StartupFailures.analyze(context).getDescription())
				.contains("Property: redis-kit.queue.initial-backoff\n    Value: \"30s\"\n")
				.contains("Reason: redis-kit.queue.initial-backoff must be between 0s and 10s, was 30s (queue 'reports',"
						+ " which inherits it)"));
	}

	@Test
	void aBadDefaultInYamlIsReportedWithItsOrigin(CapturedOutput output) {
		assertThatException().isThrownBy(() -> new SpringApplicationBuilder(MinimalApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.port=" + redis.server().port(), "spring.main.banner-mode=off",
					"spring.config.name=invalid-queue-defaults")
			.run()
			.close());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Property: redis-kit.queue.max-deliveries")
			.contains("redis-kit.queue.max-deliveries must be between 1 and 1000, was 0")
			.contains("invalid-queue-defaults.yml");
	}

	@Test
	void aListenersQueueDeliversAsOftenAsTheDefaultItInheritsThenDeadLetters() {
		this.runner.withUserConfiguration(Failing.class)
			.withPropertyValues("redis-kit.queue.max-deliveries=2", "redis-kit.queue.initial-backoff=10ms",
					"redis-kit.queue.max-backoff=10ms", "redis-kit.queue.queues.reports.max-deliveries=3")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				QueueRegistry registry = context.getBean(QueueRegistry.class);
				RedisQueue<String> emails = registry.get("emails", String.class);
				RedisQueue<String> reports = registry.get("reports", String.class);
				emails.enqueue("poison");
				reports.enqueue("poison");
				await(() -> emails.stats().dead() == 1 && reports.stats().dead() == 1);
				Failing failing = context.getBean(Failing.class);
				// Inherited: two deliveries; its own value: three.
				assertThat(failing.deliveries.get("emails").get()).isEqualTo(2);
				assertThat(failing.deliveries.get("reports").get()).isEqualTo(3);
				assertThat(emails.deadLetters(10).get(0).deliveries()).isEqualTo(2);
			});
	}

	private static String stackMessages(Throwable failure) {
		StringBuilder all = new StringBuilder();
		for (Throwable ex = failure; ex != null; ex = ex.getCause()) {
			all.append(ex.getMessage()).append('\n');
		}
		return all.toString();
	}

	private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime()).as("condition met in time").isLessThan(deadline);
			Thread.sleep(20);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Failing {

		final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();

		@QueueListener(queue = "emails")
		void email(QueueMessage<String> message) {
			fail("emails");
		}

		@QueueListener(queue = "reports")
		void report(QueueMessage<String> message) {
			fail("reports");
		}

		private void fail(String queue) {
			this.deliveries.computeIfAbsent(queue, (name) -> new AtomicInteger()).incrementAndGet();
			throw new IllegalStateException("always fails");
		}

	}

	// Auto-configuration without component scanning, which would find the other tests' configurations.
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class MinimalApplication {

	}

}
