package io.rediskit.autoconfigure.lock;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.latch.LatchRegistry;
import io.rediskit.latch.RedisCountDownLatch;
import io.rediskit.lock.Lease;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.SemaphoreRegistry;
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
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/** Wiring of the semaphore and the latch: beans, properties, switches, back-off, metrics, the endpoint. */
@ExtendWith(OutputCaptureExtension.class)
class SemaphoreAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				LockAutoConfiguration.class, SemaphoreAutoConfiguration.class, LatchAutoConfiguration.class,
				SemaphoreMetricsAutoConfiguration.class, LockMetricsAutoConfiguration.class,
				LockEndpointAutoConfiguration.class, ObservationAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@Test
	void providesTheRegistriesAndTheAdvisorByDefault() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(SemaphoreRegistry.class)
				.hasSingleBean(LatchRegistry.class)
				.hasSingleBean(DistributedSemaphoreAdvisor.class)
				.doesNotHaveBean(MicrometerSemaphoreListener.class);
			assertThat(context.getBean(SemaphoreRegistry.class).defaultWaitTime()).isEqualTo(Duration.ofSeconds(10));
			assertThat(context.getBean(LatchRegistry.class).spec().openFor()).isEqualTo(Duration.ofHours(1));
			assertThat(context.getBean(SemaphoreRegistry.class).isRunning()).as("started with the context").isTrue();
		});
	}

	@Test
	void propertiesReachTheRegistries() {
		this.runner
			.withPropertyValues("redis-kit.lock.semaphore.default-wait-time=3s",
					"redis-kit.lock.latch.abandoned-after=2h", "redis-kit.lock.latch.open-for=5m")
			.run((context) -> {
				assertThat(context.getBean(SemaphoreRegistry.class).defaultWaitTime()).isEqualTo(Duration.ofSeconds(3));
				assertThat(context.getBean(LatchRegistry.class).spec().abandonedAfter()).isEqualTo(Duration.ofHours(2));
				assertThat(context.getBean(LatchRegistry.class).spec().openFor()).isEqualTo(Duration.ofMinutes(5));
			});
	}

	@Test
	void eachMemberCanBeSwitchedOff() {
		this.runner.withPropertyValues("redis-kit.lock.semaphore.enabled=false").run((context) -> assertThat(context)
			.doesNotHaveBean(SemaphoreRegistry.class)
			.doesNotHaveBean(DistributedSemaphoreAdvisor.class)
			.hasSingleBean(LatchRegistry.class));
		this.runner.withPropertyValues("redis-kit.lock.latch.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LatchRegistry.class).hasSingleBean(SemaphoreRegistry.class));
		this.runner.withPropertyValues("redis-kit.lock.enabled=false").run((context) -> assertThat(context)
			.doesNotHaveBean(SemaphoreRegistry.class)
			.doesNotHaveBean(LatchRegistry.class)
			.doesNotHaveBean(LockRegistry.class));
	}

	@Test
	void userBeansWin() {
		this.runner.withBean("userSemaphores", SemaphoreRegistry.class,
				() -> new SemaphoreRegistry(redisFactory()))
			.run((context) -> assertThat(context).getBean(SemaphoreRegistry.class).isSameAs(context.getBean("userSemaphores")));
	}

	private static RedisConnectionFactory redisFactory() {
		org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory factory = new org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory(
				"127.0.0.1", redis.server().port());
		factory.afterPropertiesSet();
		return factory;
	}

	@Test
	void metricsWhenAMeterRegistryExists() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run((context) -> {
			assertThat(context).hasSingleBean(MicrometerSemaphoreListener.class).hasSingleBean(MicrometerLatchListener.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			context.getBean(SemaphoreRegistry.class).getSemaphore("metered", 1).acquire(1, Duration.ZERO).close();
			RedisCountDownLatch latch = context.getBean(LatchRegistry.class).getCountDownLatch("metered-latch");
			latch.trySetCount(1);
			latch.countDown();
			assertThat(latch.await(Duration.ZERO)).isTrue();
			assertThat(meters.get("rediskit.lock.latch.await").tag("latch", "metered-latch").tag("result", "opened")
				.timer().count()).isEqualTo(1);
			assertThat(meters.get("rediskit.lock.semaphore.acquire").tag("semaphore", "metered").tag("result", "acquired")
				.timer().count()).isEqualTo(1);
			assertThat(meters.get("rediskit.lock.semaphore.held").tag("semaphore", "metered").timer().count()).isEqualTo(1);
			assertThat(meters.get("rediskit.lock.latch.opened").tag("latch", "metered-latch").counter().count()).isEqualTo(1);
		});
	}

	@Test
	void theEndpointListsSemaphoreLeases() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=rediskitlock").run((context) -> {
			RedisLocksEndpoint endpoint = context.getBean(RedisLocksEndpoint.class);
			try (Lease lease = context.getBean(SemaphoreRegistry.class).getSemaphore("listed", 2).acquire(2,
					Duration.ZERO)) {
				assertThat(endpoint.heldLocks(true).locks()).singleElement().satisfies((held) -> {
					assertThat(held.name()).isEqualTo("listed");
					assertThat(held.kind()).isEqualTo("semaphore");
					assertThat(held.fencingToken()).isEqualTo(lease.fencingToken());
					assertThat(held.watchdog()).isTrue();
				});
			}
			assertThat(endpoint.heldLocks(true).locks()).isEmpty();
		});
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			redis-kit.lock.semaphore.watchdog-timeout=0s     | redis-kit.lock.semaphore.watchdog-timeout    | must be positive
			redis-kit.lock.semaphore.max-poll-interval=-1s   | redis-kit.lock.semaphore.max-poll-interval   | must be positive
			redis-kit.lock.semaphore.default-wait-time=-5s   | redis-kit.lock.semaphore.default-wait-time   | must be zero
			redis-kit.lock.latch.open-for=0s                 | redis-kit.lock.latch.open-for                | must be positive
			redis-kit.lock.latch.abandoned-after=-1h         | redis-kit.lock.latch.abandoned-after         | must be positive
			redis-kit.lock.latch.open-four=1h                | redis-kit.lock.latch.open-four               | has no property
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
