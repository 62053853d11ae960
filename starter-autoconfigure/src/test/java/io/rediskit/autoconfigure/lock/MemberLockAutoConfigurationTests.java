package io.rediskit.autoconfigure.lock;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.lock.FairLockRegistry;
import io.rediskit.lock.Lease;
import io.rediskit.lock.ReadWriteLock;
import io.rediskit.lock.ReadWriteLockRegistry;
import io.rediskit.lock.RedisLock;
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
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/** Wiring of the read-write and fair lock auto-configurations. */
@ExtendWith(OutputCaptureExtension.class)
class MemberLockAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				LockAutoConfiguration.class, LockMetricsAutoConfiguration.class, LockEndpointAutoConfiguration.class,
				ObservationAutoConfiguration.class,
				ReadWriteLockAutoConfiguration.class, FairLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@Test
	void providesBothRegistriesWithTheirProperties() {
		this.runner
			.withPropertyValues("redis-kit.lock.read-write.watchdog-timeout=12s",
					"redis-kit.lock.read-write.waiter-timeout=2s", "redis-kit.lock.fair.default-wait-time=0",
					"redis-kit.lock.fair.waiter-timeout=3s", "redis-kit.lock.fair.max-poll-interval=100ms")
			.run((context) -> {
				assertThat(context).hasSingleBean(ReadWriteLockRegistry.class).hasSingleBean(FairLockRegistry.class);
				ReadWriteLockRegistry readWrite = context.getBean(ReadWriteLockRegistry.class);
				assertThat(readWrite.spec().watchdogTimeout()).isEqualTo(Duration.ofSeconds(12));
				assertThat(readWrite.spec().waiterTimeout()).isEqualTo(Duration.ofSeconds(2));
				FairLockRegistry fair = context.getBean(FairLockRegistry.class);
				assertThat(fair.spec().defaultWaitTime()).isZero();
				assertThat(fair.spec().waiterTimeout()).isEqualTo(Duration.ofSeconds(3));
				assertThat(fair.spec().maxPollInterval()).isEqualTo(Duration.ofMillis(100));
				assertThat(readWrite.isRunning()).as("started with the context").isTrue();
			});
	}

	@Test
	void canBeSwitchedOffEachOrWithTheLock() {
		this.runner.withPropertyValues("redis-kit.lock.read-write.enabled=false").run((context) -> assertThat(context)
			.doesNotHaveBean(ReadWriteLockRegistry.class)
			.hasSingleBean(FairLockRegistry.class));
		this.runner.withPropertyValues("redis-kit.lock.fair.enabled=false").run((context) -> assertThat(context)
			.hasSingleBean(ReadWriteLockRegistry.class)
			.doesNotHaveBean(FairLockRegistry.class));
		this.runner.withPropertyValues("redis-kit.lock.enabled=false").run((context) -> assertThat(context)
			.doesNotHaveBean(ReadWriteLockRegistry.class)
			.doesNotHaveBean(FairLockRegistry.class));
	}

	@Test
	void userBeansWin() {
		this.runner
			.withBean("userFairLocks", FairLockRegistry.class,
					() -> new FairLockRegistry(new org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory()))
			.run((context) -> assertThat(context).getBean(FairLockRegistry.class)
				.isSameAs(context.getBean("userFairLocks")));
	}

	@Test
	void metricsUnderEachMembersName() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run((context) -> {
			ReadWriteLock rw = context.getBean(ReadWriteLockRegistry.class).getReadWriteLock("reports");
			rw.readLock().lock();
			rw.readLock().unlock();
			RedisLock fair = context.getBean(FairLockRegistry.class).getLock("turns");
			fair.lock();
			fair.unlock();
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("rediskit.lock.readwrite.acquire").tag("lock", "reports").tag("result", "acquired")
				.timer()
				.count()).isEqualTo(1);
			assertThat(registry.get("rediskit.lock.readwrite.held").tag("lock", "reports").timer().count()).isEqualTo(1);
			assertThat(registry.get("rediskit.lock.fair.acquire").tag("lock", "turns").timer().count()).isEqualTo(1);
			assertThat(registry.find("rediskit.lock.acquire").timer()).as("nothing under the lock's name").isNull();
		});
	}

	@Test
	void theEndpointListsWhatTheMembersHold() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=rediskitlock").run((context) -> {
			RedisLocksEndpoint endpoint = context.getBean(RedisLocksEndpoint.class);
			ReadWriteLock rw = context.getBean(ReadWriteLockRegistry.class).getReadWriteLock("listed-rw");
			try (Lease read = rw.readLock().acquire(Duration.ZERO);
					Lease fair = context.getBean(FairLockRegistry.class).getLock("listed-fair").acquire(Duration.ZERO)) {
				assertThat(endpoint.heldLocks(true).locks()).extracting((held) -> held.kind() + " " + held.name())
					.containsExactly("fair listed-fair", "readwrite listed-rw");
			}
			assertThat(endpoint.heldLocks(true).locks()).isEmpty();
		});
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			redis-kit.lock.read-write.waiter-timeout=0s  | redis-kit.lock.read-write.waiter-timeout | must be positive
			redis-kit.lock.read-write.watchdog-timeout=-1s | redis-kit.lock.read-write.watchdog-timeout | must be positive
			redis-kit.lock.fair.waiter-timeout=2ms       | redis-kit.lock.fair.waiter-timeout   | must be at least 3ms
			redis-kit.lock.fair.max-poll-interval=0s     | redis-kit.lock.fair.max-poll-interval | must be positive
			redis-kit.lock.fair.waiter-timout=1s         | redis-kit.lock.fair.waiter-timout    | has no property
			""")
	void invalidPropertiesFailStartupNamingTheProperty(String property, String name, String reason,
			CapturedOutput output) {
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


}
