package io.rediskit.autoconfigure.lock;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.lock.LockListener;
import io.rediskit.lock.RedisLock;
import io.rediskit.lock.LockRegistry;
import io.rediskit.support.KeyNaming;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/** Wiring of the lock auto-configuration. */
@ExtendWith(OutputCaptureExtension.class)
class LockAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				LockAutoConfiguration.class, LockMetricsAutoConfiguration.class, LockEndpointAutoConfiguration.class,
				ObservationAutoConfiguration.class,
				LockWebAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@Test
	void providesTheLockBeansByDefault() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(LockRegistry.class).hasSingleBean(DistributedLockAdvisor.class)
				.hasSingleBean(KeyNaming.class)
				.doesNotHaveBean(MicrometerLockListener.class)
				.doesNotHaveBean(RedisLocksEndpoint.class)
				.doesNotHaveBean(LockExceptionHandler.class);
			LockRegistry factory = context.getBean(LockRegistry.class);
			assertThat(factory.spec().watchdogTimeout()).isEqualTo(Duration.ofSeconds(30));
			assertThat(factory.spec().defaultLeaseTime()).isNull();
			assertThat(factory.spec().defaultWaitTime()).isEqualTo(Duration.ofSeconds(10));
			assertThat(factory.spec().replicaWait().enabled()).as("replica wait off by default").isFalse();
			assertThat(factory.getKeyNaming().prefix()).isEqualTo("rk:");
		});
	}

	@Test
	void propertiesReachTheFactory() {
		this.runner
			.withPropertyValues("redis-kit.key-prefix=app:", "redis-kit.lock.watchdog-timeout=12s",
					"redis-kit.lock.default-wait-time=0", "redis-kit.lock.default-lease-time=1m",
					"redis-kit.lock.max-poll-interval=250ms", "redis-kit.lock.replica-wait.replicas=1",
					"redis-kit.lock.replica-wait.timeout=50ms", "redis-kit.lock.replica-wait.on-shortfall=accept")
			.run((context) -> {
				LockRegistry factory = context.getBean(LockRegistry.class);
				assertThat(factory.spec().watchdogTimeout()).isEqualTo(Duration.ofSeconds(12));
				assertThat(factory.spec().defaultWaitTime()).isZero();
				assertThat(factory.spec().defaultLeaseTime()).isEqualTo(Duration.ofMinutes(1));
				assertThat(factory.spec().maxPollInterval()).isEqualTo(Duration.ofMillis(250));
				assertThat(factory.spec().replicaWait())
					.isEqualTo(io.rediskit.support.ReplicaWait.accepting(1, Duration.ofMillis(50)));
				RedisLock lock = factory.getLock("wired");
				lock.lock();
				try {
					assertThat(redis.server().command("EXISTS", "app:lock:{wired}")).isEqualTo(1L);
					assertThat((Long) redis.server().command("PTTL", "app:lock:{wired}")).isGreaterThan(50_000L);
				}
				finally {
					lock.unlock();
				}
			});
	}

	@Test
	void startsWhileRedisIsDownAndFailsCallsClearly() throws Exception {
		int closedPort;
		try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
			closedPort = socket.getLocalPort();
		}
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
					LockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.port=" + closedPort, "spring.data.redis.connect-timeout=500ms")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(LockRegistry.class);
				RedisLock lock = context.getBean(LockRegistry.class).getLock("down");
				assertThatException().isThrownBy(lock::tryLock)
					.isInstanceOf(org.springframework.dao.DataAccessResourceFailureException.class);
			});
	}

	@Test
	void startsWithTheContextRunsTheWatchdogOnTheApplicationsSchedulerAndStopsWithTheContext() throws Exception {
		RecordingListener recording = new RecordingListener();
		java.util.concurrent.atomic.AtomicInteger periodicTasks = new java.util.concurrent.atomic.AtomicInteger();
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler() {

			@Override
			public java.util.concurrent.ScheduledFuture<?> scheduleWithFixedDelay(Runnable task,
					java.time.Instant startTime, Duration delay) {
				periodicTasks.incrementAndGet();
				return super.scheduleWithFixedDelay(task, startTime, delay);
			}

		};
		AtomicReference<LockRegistry> started = new AtomicReference<>();
		this.runner.withBean(TaskScheduler.class, () -> scheduler)
			.withBean(LockListener.class, () -> recording)
			.withPropertyValues("redis-kit.lock.watchdog-timeout=300ms")
			.run((context) -> {
				LockRegistry registry = context.getBean(LockRegistry.class);
				started.set(registry);
				assertThat(registry.isRunning()).isTrue();
				assertThat(periodicTasks).hasValue(1);
				RedisLock lock = registry.getLock("scheduled");
				lock.lock();
				try {
					long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
					while (recording.renewed.get() < 2 && System.nanoTime() < deadline) {
						Thread.sleep(10);
					}
					assertThat(recording.renewed.get()).as("renewals on the application's scheduler")
						.isGreaterThanOrEqualTo(2);
				}
				finally {
					lock.unlock();
				}
			});
		assertThat(started.get().isRunning()).isFalse();
		assertThat(periodicTasks).hasValue(1);
	}

	@Test
	void canBeSwitchedOff() {
		this.runner.withPropertyValues("redis-kit.lock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockRegistry.class)
				.doesNotHaveBean(DistributedLockAdvisor.class));
	}

	@Test
	void backsOffWithoutRedis() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RedisKitAutoConfiguration.class, LockAutoConfiguration.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LockRegistry.class));
	}

	@Test
	void userBeansWin() {
		this.runner.withUserConfiguration(UserBeans.class).run((context) -> {
			assertThat(context).hasSingleBean(LockRegistry.class).hasSingleBean(KeyNaming.class);
			assertThat(context.getBean(LockRegistry.class)).isSameAs(context.getBean("userLockRegistry"));
			assertThat(context.getBean(KeyNaming.class).prefix()).isEqualTo("user:");
		});
	}

	@Test
	void metricsWhenAMeterRegistryExists() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run((context) -> {
			assertThat(context).hasSingleBean(MicrometerLockListener.class);
			RedisLock lock = context.getBean(LockRegistry.class).getLock("metered", "42");
			lock.lock();
			lock.unlock();
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("rediskit.lock.acquire").tag("lock", "metered").tag("result", "acquired").timer()
				.count()).isEqualTo(1);
			assertThat(registry.get("rediskit.lock.held").tag("lock", "metered").timer().count()).isEqualTo(1);
			assertThat(registry.find("rediskit.lock.acquire").tag("lock", "metered:42").timer()).isNull();
			assertThat(registry.get("rediskit.lock.acquire").timer().getId().getDescription()).isNotBlank();
		});
	}

	@Test
	void userListenersAreToldToo() {
		RecordingListener recording = new RecordingListener();
		this.runner.withBean(LockListener.class, () -> recording)
			.withPropertyValues("redis-kit.lock.watchdog-timeout=300ms")
			.run((context) -> {
				RedisLock lock = context.getBean(LockRegistry.class).getLock("listened");
				lock.lock();
				try {
					long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
					while (recording.renewed.get() == 0 && System.nanoTime() < deadline) {
						Thread.sleep(10);
					}
					assertThat(recording.renewed.get()).as("a renewal told to the user's listener").isPositive();
				}
				finally {
					lock.unlock();
				}
			});
	}

	@Test
	void endpointWhenExposed() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=rediskitlock").run((context) -> {
			assertThat(context).hasSingleBean(RedisLocksEndpoint.class);
			RedisLocksEndpoint endpoint = context.getBean(RedisLocksEndpoint.class);
			RedisLock lock = context.getBean(LockRegistry.class).getLock("listed");
			lock.lock();
			try {
				assertThat(endpoint.heldLocks(true).locks()).singleElement().satisfies((held) -> {
					assertThat(held.name()).isEqualTo("listed");
					assertThat(held.fencingToken()).isEqualTo(lock.fencingToken());
					assertThat(held.holdCount()).isEqualTo(1);
					assertThat(held.leaseRemainingMillis()).isPositive();
				});
			}
			finally {
				lock.unlock();
			}
			assertThat(endpoint.heldLocks(true).locks()).isEmpty();
			assertThat(endpoint.heldLocks(true).jobs()).isEmpty();
			ScheduledJobs.Job job = context.getBean(ScheduledJobs.class)
				.job("nightly", false, Duration.ZERO, Duration.ofMinutes(1));
			job.started();
			job.ended(ScheduledJobs.Outcome.LEASE_LOST);
			job.skipped();
			assertThat(endpoint.heldLocks(true).jobs()).singleElement().satisfies((listed) -> {
				assertThat(listed.name()).isEqualTo("nightly");
				assertThat(listed.lockAtMostFor()).isEqualTo("1m");
				assertThat(listed.lastOutcome()).isEqualTo("lease-lost");
				assertThat(listed.lastStart()).isNotNull();
				assertThat(listed.lastSkip()).isNotNull();
				assertThat(listed.runs()).isEqualTo(1);
				assertThat(listed.skips()).isEqualTo(1);
			});
		});
	}

	@Test
	void conflictHandlerInWebApplications() {
		WebApplicationContextRunner web = new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
					LockAutoConfiguration.class, LockWebAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.port=" + redis.server().port());
		web.run((context) -> assertThat(context).hasSingleBean(LockExceptionHandler.class));
		web.withPropertyValues("redis-kit.lock.web.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockExceptionHandler.class));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			redis-kit.lock.watchdog-timeout=-1s   | redis-kit.lock.watchdog-timeout    | must be positive
			redis-kit.lock.max-poll-interval=0s   | redis-kit.lock.max-poll-interval   | must be positive
			redis-kit.lock.default-lease-time=0s  | redis-kit.lock.default-lease-time  | must be positive
			redis-kit.lock.default-wait-time=-5s  | redis-kit.lock.default-wait-time   | must be zero
			redis-kit.lock.default-wait-time=1000000d | redis-kit.lock.default-wait-time | must be at most 36500 days
			redis-kit.lock.watchdog-timeout=1000000d  | redis-kit.lock.watchdog-timeout  | must be at most 36500 days
			redis-kit.key-prefix={app}:           | redis-kit.key-prefix               | must not contain
			redis-kit.lock.watchdog-timeout=soon  | redis-kit.lock.watchdog-timeout    | java.time.Duration
			redis-kit.lock.watchdog-timout=10s    | redis-kit.lock.watchdog-timout     | has no property
			redis-kit.lock.replica-wait.replicas=-1   | redis-kit.lock.replica-wait.replicas | must be 0 (no wait) or more
			redis-kit.lock.replica-wait.timeout=0ms   | redis-kit.lock.replica-wait.timeout  | must be between 1ms and 1m
			redis-kit.lock.replica-wait.on-shortfall=maybe | redis-kit.lock.replica-wait.on-shortfall | is not one of fail, accept
			""")
	void invalidPropertiesFailStartupNamingTheProperty(String property, String name, String reason,
			CapturedOutput output) {
		assertStartupFails(output, property, name, reason);
	}

	@Test
	void invalidYamlFailsStartupNamingTheProperty(CapturedOutput output) {
		assertStartupFails(output, "spring.config.name=invalid-watchdog", "redis-kit.lock.watchdog-timeout",
				"must be positive");
		assertThat(output).contains("invalid-watchdog.yml");
	}

	private static void assertStartupFails(CapturedOutput output, String property, String name, String reason) {
		assertThatException().isThrownBy(() -> new SpringApplicationBuilder(MinimalApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.port=" + redis.server().port(), "spring.main.banner-mode=off", property)
			.run()
			.close());
		assertThat(output).contains("APPLICATION FAILED TO START").contains(name).contains(reason);
	}

	@SpringBootApplication
	static class MinimalApplication {

	}

	@Configuration(proxyBeanMethods = false)
	static class UserBeans {

		@Bean
		LockRegistry userLockRegistry(RedisConnectionFactory connectionFactory) {
			return new LockRegistry(connectionFactory);
		}

		@Bean
		KeyNaming userKeyNaming() {
			return new KeyNaming("user:");
		}

	}

	static class RecordingListener implements LockListener {

		final java.util.concurrent.atomic.AtomicInteger renewed = new java.util.concurrent.atomic.AtomicInteger();

		@Override
		public void onRenewal(String lockName, RenewalResult result) {
			if (result == RenewalResult.RENEWED) {
				this.renewed.incrementAndGet();
			}
		}

	}

}
