package io.rediskit.autoconfigure.queue;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.support.StartupFailures;
import io.rediskit.queue.QueueListener;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.Recurring;
import io.rediskit.queue.RecurringJobs;
import io.rediskit.queue.RecurringSlot;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** Recurring jobs from {@code redis-kit.queue.recurring}: wiring, endpoint and metrics, and startup failures. */
class RecurringJobsAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(DataRedisAutoConfiguration.class,
			RedisKitAutoConfiguration.class, QueueAutoConfiguration.class, QueueMetricsAutoConfiguration.class,
			QueueEndpointAutoConfiguration.class);

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(),
				"management.endpoints.web.exposure.include=rediskitqueue", "redis-kit.queue.queues.reports.poll-interval=1s");

	@BeforeEach
	void clean() {
		redis.flushAll();
	}

	@Test
	void aConfiguredJobEnqueuesItsSlotsAndTheEndpointAndMetricsReportIt() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("redis-kit.queue.recurring.beat.queue=reports",
					"redis-kit.queue.recurring.beat.fixed-rate=100ms")
			.run((context) -> {
				assertThat(context).hasSingleBean(RecurringJobs.class).hasSingleBean(MicrometerRecurringJobListener.class);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				QueueTestingAwait.await(() -> meters.find("rediskit.queue.recurring.enqueued").tag("job", "beat").counter() != null
						&& meters.get("rediskit.queue.recurring.enqueued").tag("job", "beat").counter().count() >= 3);
				var message = context.getBean(QueueRegistry.class)
					.get("reports", RecurringSlot.class)
					.poll(1, Duration.ofSeconds(5))
					.get(0);
				assertThat(message.payload().job()).isEqualTo("beat");
				assertThat(message.id()).isEqualTo(RecurringSlot.messageId("beat", message.payload().slot()));
				var recurring = context.getBean(RedisQueuesEndpoint.class).queues().recurring();
				assertThat(recurring).containsOnlyKeys("beat");
				assertThat(recurring.get("beat").queue()).isEqualTo("reports");
				assertThat(recurring.get("beat").schedule()).isEqualTo("every 100ms");
				assertThat(recurring.get("beat").missedSlots()).isEqualTo("RUN_ONCE");
				assertThat(recurring.get("beat").lastSlot()).isNotNull();
				assertThat(recurring.get("beat").nextSlot()).isAfter(recurring.get("beat").lastSlot());
				assertThat(meters.get("rediskit.queue.recurring.lateness").tags("job", "beat", "queue", "reports")
					.timer().count()).isGreaterThanOrEqualTo(3);
			});
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = {
			"cron=0 0 25 * * *|redis-kit.queue.recurring.beat.cron must be a cron expression",
			"cron=0 0 2 * * *;zone=Mars/Olympus|redis-kit.queue.recurring.beat.zone",
			"cron=0 0 2 * * *;fixed-rate=1m|redis-kit.queue.recurring.beat.cron and fixed-rate cannot both be set",
			"zone=UTC|redis-kit.queue.recurring.beat.cron or fixed-rate must be set",
			"fixed-rate=1ms|redis-kit.queue.recurring.beat.fixed-rate must be between 10ms and 366 days",
			"fixed-rate=1s;grace=-1s|redis-kit.queue.recurring.beat.grace must be between",
			"fixed-rate=1s;missed-slots=sometimes|redis-kit.queue.recurring.beat.missed-slots",
			"fixed-rate=1s;queue=unknown|redis-kit.queue.recurring.beat.queue names no queue configured",
			"fixed-rate=1s;queue=report|redis-kit.queue.recurring.beat.queue names no queue configured under redis-kit.queue.queues: 'report' (did you mean 'reports'?); configure",
			"fixed-rate=1s;queue=bad.name|redis-kit.queue.recurring.beat.queue must be a queue name" })
	void invalidJobsFailStartupNamingTheProperty(String settings, String message) {
		String[] properties = ("queue=reports;" + settings).split(";");
		for (int i = 0; i < properties.length; i++) {
			properties[i] = "redis-kit.queue.recurring.beat." + properties[i];
		}
		this.runner.withPropertyValues(properties).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(QueueTestingAwait.messages(context.getStartupFailure())).contains(message);
		});
	}

	@Test
	void aJobWhoseQueueIsNotConfiguredIsReportedAsAFailureAnalysisNamingTheProperty() {
		this.runner.withPropertyValues("redis-kit.queue.recurring.beat.queue=unknown",
				"redis-kit.queue.recurring.beat.fixed-rate=1s").run((context) -> {
			FailureAnalysis analysis = StartupFailures.analyze(context);
			assertThat(analysis.getDescription()).contains("Property: redis-kit.queue.recurring.beat.queue\n"
					+ "    Value: \"unknown\"\n    Reason: redis-kit.queue.recurring.beat.queue names no queue configured"
					+ " under redis-kit.queue.queues: 'unknown'; configure redis-kit.queue.queues.unknown");
		});
	}

	@Test
	void aRecurringListenerMethodRunsEachSlotAndIsListed() {
		this.runner.withUserConfiguration(Beat.class).run((context) -> {
			Beat beat = context.getBean(Beat.class);
			QueueTestingAwait.await(() -> beat.slots.size() >= 3);
			assertThat(beat.slots).doesNotHaveDuplicates();
			assertThat(context.getBean(RedisQueuesEndpoint.class).queues().recurring()).containsOnlyKeys("reports");
			assertThat(context.getBean(RecurringJobs.class).jobs().get(0).spec().fixedRate())
				.isEqualTo(Duration.ofMillis(100));
		});
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = {
			"BadCron|@Recurring(cron = \"0 0 25 * * *\") on BadCron.run(RecurringSlot): cron must be a cron expression",
			"BadZone|@Recurring(cron = \"0 0 2 * * *\") on BadZone.run(RecurringSlot): zone must be a zone id",
			"NoSchedule|on NoSchedule.run(RecurringSlot): cron or fixedRate must be set",
			"BadRate|@Recurring(fixedRate = \"soon\") on BadRate.run(RecurringSlot): fixedRate 'soon' of @Recurring",
			"NoListener|on NoListener.run(RecurringSlot): the method needs @QueueListener",
			"WrongParameter|on WrongParameter.run(String): the method must take RecurringSlot" })
	void invalidAnnotationsFailStartupNamingTheMethod(String bean, String message) throws ClassNotFoundException {
		Class<?> type = Class.forName(RecurringJobsAutoConfigurationTests.class.getName() + "$" + bean);
		this.runner.withBean(type).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(QueueTestingAwait.messages(context.getStartupFailure())).contains("@Recurring", message);
		});
	}

	static class Beat {

		final java.util.Queue<java.time.Instant> slots = new java.util.concurrent.ConcurrentLinkedQueue<>();

		@Recurring(fixedRate = "100ms")
		@QueueListener(queue = "reports")
		void run(RecurringSlot slot) {
			this.slots.add(slot.slot());
		}

	}

	static class BadCron {

		@Recurring(cron = "0 0 25 * * *")
		@QueueListener(queue = "reports")
		void run(RecurringSlot slot) {
		}

	}

	static class BadZone {

		@Recurring(cron = "0 0 2 * * *", zone = "Mars/Olympus")
		@QueueListener(queue = "reports")
		void run(RecurringSlot slot) {
		}

	}

	static class NoSchedule {

		@Recurring
		@QueueListener(queue = "reports")
		void run(RecurringSlot slot) {
		}

	}

	static class BadRate {

		@Recurring(fixedRate = "soon")
		@QueueListener(queue = "reports")
		void run(RecurringSlot slot) {
		}

	}

	static class NoListener {

		@Recurring(fixedRate = "1s")
		void run(RecurringSlot slot) {
		}

	}

	static class WrongParameter {

		@Recurring(fixedRate = "1s")
		@QueueListener(queue = "reports")
		void run(String slot) {
		}

	}


}
