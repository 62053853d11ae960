package io.rediskit.autoconfigure.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.lock.DistributedLock;
import io.rediskit.lock.Lease;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.RedisLock;
import io.rediskit.lock.RedlockRegistry;
import io.rediskit.lock.RedlockSpec;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/** Wiring of Redlock: properties, the node connections, the registry, metrics, endpoint and the annotation. */
class RedlockAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension servers = RedisServerExtension.servers(5);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedisKitAutoConfiguration.class, LockAutoConfiguration.class, LockMetricsAutoConfiguration.class,
				ObservationAutoConfiguration.class,
				LockEndpointAutoConfiguration.class, RedlockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + servers.server(0).port());

	private static String[] nodes() {
		List<String> properties = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			properties.add("redis-kit.lock.redlock.nodes[" + i + "]=redis://127.0.0.1:" + servers.server(i).port());
		}
		return properties.toArray(String[]::new);
	}

	@Test
	void noRedlockWithoutNodes() {
		this.runner.run((context) -> assertThat(context).hasNotFailed()
			.hasSingleBean(LockRegistry.class)
			.doesNotHaveBean(RedlockRegistry.class)
			.doesNotHaveBean(RedlockConnections.class));
	}

	@Test
	void aRegistryOverEveryConfiguredNodeWithTheDefaults() {
		this.runner.withPropertyValues(nodes()).run((context) -> {
			assertThat(context).hasSingleBean(RedlockRegistry.class).hasSingleBean(RedlockConnections.class);
			RedlockRegistry registry = context.getBean(RedlockRegistry.class);
			assertThat(registry.nodeCount()).isEqualTo(5);
			assertThat(registry.quorum()).isEqualTo(3);
			assertThat(registry.spec()).isEqualTo(RedlockSpec.defaults());
			assertThat(registry.isRunning()).isTrue();
			assertThat(context.getBean(RedlockConnections.class).isRunning()).isTrue();
			try (Lease lease = registry.getLock("wired").acquire(Duration.ofSeconds(5))) {
				// Held once a majority took it; the other nodes follow within a node timeout.
				long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
				while (servers.all().stream().anyMatch((server) -> !Long.valueOf(1).equals(server.command("EXISTS", "rk:lock:{wired}")))
						&& System.nanoTime() < deadline) {
					Thread.sleep(10);
				}
				for (RedisServerProcess server : servers.all()) {
					assertThat(server.command("EXISTS", "rk:lock:{wired}")).isEqualTo(1L);
				}
			}
		});
	}

	@Test
	void nodesAsACommaSeparatedValueAndEverySetting() {
		String list = servers.all()
			.stream()
			.map((server) -> "redis://127.0.0.1:" + server.port() + "/0")
			.collect(Collectors.joining(","));
		this.runner
			.withPropertyValues("redis-kit.lock.redlock.nodes=" + list, "redis-kit.lock.redlock.node-timeout=200ms",
					"redis-kit.lock.redlock.watchdog-timeout=20s", "redis-kit.lock.redlock.default-lease-time=5s",
					"redis-kit.lock.redlock.default-wait-time=3s", "redis-kit.lock.redlock.clock-drift-factor=0.02",
					"redis-kit.lock.redlock.clock-drift-margin=5ms", "redis-kit.lock.redlock.retry-delay=10ms",
					"redis-kit.lock.redlock.retry-jitter=0ms", "redis-kit.key-prefix=app:")
			.run((context) -> {
				RedlockRegistry registry = context.getBean(RedlockRegistry.class);
				assertThat(registry.nodeCount()).isEqualTo(5);
				assertThat(registry.spec())
					.isEqualTo(new RedlockSpec(Duration.ofMillis(200), Duration.ofSeconds(20), Duration.ofSeconds(5),
							Duration.ofSeconds(3), 0.02, Duration.ofMillis(5), Duration.ofMillis(10), Duration.ZERO));
				assertThat(registry.getKeyNaming().prefix()).isEqualTo("app:");
			});
	}

	@Test
	void metricsAreTaggedByKindAndTheEndpointListsRedlockHolds() {
		this.runner.withPropertyValues(nodes())
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.run((context) -> {
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				RedisLock redlock = context.getBean(RedlockRegistry.class).getLock("metered");
				RedisLock single = context.getBean(LockRegistry.class).getLock("metered");
				try (Lease lease = redlock.acquire(Duration.ofSeconds(5))) {
					RedisLocksEndpoint endpoint = new RedisLocksEndpoint(context.getBean(LockRegistry.class));
					endpoint.include("redlock", context.getBean(RedlockRegistry.class)::heldLocks);
					assertThat(endpoint.heldLocks(true).locks()).singleElement()
						.satisfies((held) -> assertThat(held.kind()).isEqualTo("redlock"));
				}
				single.lock();
				single.unlock();
				assertThat(meters.get("rediskit.lock.acquire").tag("kind", "redlock").tag("result", "acquired").timer()
					.count()).isEqualTo(1);
				assertThat(meters.get("rediskit.lock.acquire").tag("kind", "single").tag("result", "acquired").timer()
					.count()).isEqualTo(1);
				assertThat(meters.get("rediskit.lock.held").tag("kind", "redlock").timer().count()).isEqualTo(1);
			});
	}

	@Test
	void closingTheContextStopsTheRegistryAndTheConnections() {
		RedlockConnections[] connections = new RedlockConnections[1];
		RedlockRegistry[] registry = new RedlockRegistry[1];
		this.runner.withPropertyValues(nodes()).run((context) -> {
			connections[0] = context.getBean(RedlockConnections.class);
			registry[0] = context.getBean(RedlockRegistry.class);
		});
		assertThat(connections[0].isRunning()).isFalse();
		assertThat(registry[0].isRunning()).isFalse();
	}

	@Test
	void annotatedMethodsLockWithRedlock() {
		this.runner.withPropertyValues(nodes()).withUserConfiguration(RedlockBeans.class).run((context) -> {
			Report report = context.getBean(Report.class);
			ExecutorService executor = Executors.newFixedThreadPool(8);
			try {
				List<Future<?>> tasks = new ArrayList<>();
				for (int t = 0; t < 8; t++) {
					tasks.add(executor.submit(() -> {
						for (int i = 0; i < 10; i++) {
							report.write();
						}
					}));
				}
				for (Future<?> task : tasks) {
					task.get(2, TimeUnit.MINUTES);
				}
			}
			finally {
				executor.shutdownNow();
			}
			// Read through the proxy's methods: its own fields are not the bean's.
			assertThat(report.count()).isEqualTo(80);
			assertThat(report.sawRedlockKeys()).isTrue();
		});
	}

	@Test
	void anAnnotationAskingForRedlockFailsStartupWhenNoneIsConfigured() {
		this.runner.withUserConfiguration(RedlockBeans.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context)).contains("redlock of @DistributedLock(name = \"report\", redlock = true)")
				.contains("Report.write()")
				.contains("redis-kit.lock.redlock.nodes");
		});
	}

	@Test
	void aRedlockLeaseShorterThanThreeNodeTimeoutsFailsStartup() {
		this.runner.withPropertyValues(nodes()).withUserConfiguration(ShortLeaseBeans.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context)).contains("leaseTime of @DistributedLock(name = \"short\", redlock = true)")
				.contains("three Redlock node timeouts");
		});
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			redis-kit.lock.redlock.nodes[1]=http://127.0.0.1:1      | redis-kit.lock.redlock.nodes[1] must start with redis://
			redis-kit.lock.redlock.nodes[1]=redis://127.0.0.1:70000 | redis-kit.lock.redlock.nodes[1] must have a port
			redis-kit.lock.redlock.nodes[1]=redis://:s3cret@h:1/x   | redis-kit.lock.redlock.nodes[1] must end with a database number
			redis-kit.lock.redlock.nodes[1]=redis:///0              | redis-kit.lock.redlock.nodes[1] must name a host
			redis-kit.lock.redlock.nodes[1]=redis://127.0.0.1:1?x=1 | redis-kit.lock.redlock.nodes[1] must not have a query
			redis-kit.lock.redlock.nodes[1]=redis://127.0.0.1:SAME  | redis-kit.lock.redlock.nodes[1] names the same server as redis-kit.lock.redlock.nodes[0]
			redis-kit.lock.redlock.node-timeout=0s                  | redis-kit.lock.redlock.node-timeout must be positive
			redis-kit.lock.redlock.node-timeout=20s                 | redis-kit.lock.redlock.watchdog-timeout must be at least three node timeouts
			redis-kit.lock.redlock.default-lease-time=100ms         | redis-kit.lock.redlock.default-lease-time must be at least three node timeouts
			redis-kit.lock.redlock.default-wait-time=-1s            | redis-kit.lock.redlock.default-wait-time must be zero
			redis-kit.lock.redlock.clock-drift-factor=2             | redis-kit.lock.redlock.clock-drift-factor must be from 0 to 0.5
			redis-kit.lock.redlock.clock-drift-margin=-1ms          | redis-kit.lock.redlock.clock-drift-margin must be zero or positive
			redis-kit.lock.redlock.retry-delay=0s                   | redis-kit.lock.redlock.retry-delay must be positive
			redis-kit.lock.redlock.retry-jitter=-1ms                | redis-kit.lock.redlock.retry-jitter must be zero or positive
			redis-kit.lock.redlock.connect-timeout=0s               | redis-kit.lock.redlock.connect-timeout must be positive
			redis-kit.lock.redlock.command-timeout=-1s              | redis-kit.lock.redlock.command-timeout must be positive
			redis-kit.lock.redlock.node-timout=1s                   | redis-kit.lock.redlock.node-timout
			""")
	void invalidPropertiesFailStartupNamingTheProperty(String property, String message) {
		String value = property.replace("SAME", Integer.toString(servers.server(0).port()));
		this.runner.withPropertyValues(nodes()).withPropertyValues(value).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context)).contains(message).doesNotContain("s3cret");
		});
	}

	private static String messages(AssertableApplicationContext context) {
		StringBuilder messages = new StringBuilder();
		for (Throwable cause = context.getStartupFailure(); cause != null; cause = cause.getCause()) {
			messages.append(cause.getMessage()).append('\n');
			if (cause instanceof org.springframework.boot.context.properties.bind.validation.BindValidationException validation) {
				validation.getValidationErrors()
					.forEach((error) -> messages.append(error.getDefaultMessage()).append('\n'));
			}
		}
		return messages.toString();
	}

	@Configuration(proxyBeanMethods = false)
	static class RedlockBeans {

		@Bean
		Report report() {
			return new Report();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ShortLeaseBeans {

		@Bean
		ShortLease shortLease() {
			return new ShortLease();
		}

	}

	static class Report {

		int count;

		boolean sawRedlockKeys = true;

		@DistributedLock(name = "report", redlock = true, waitTime = "30s")
		public void write() {
			int value = this.count;
			Thread.yield();
			this.count = value + 1;
			long holding = servers.all()
				.stream()
				.filter((server) -> Long.valueOf(1).equals(server.command("EXISTS", "rk:lock:{report}")))
				.count();
			this.sawRedlockKeys &= holding >= 3;
		}

		public int count() {
			return this.count;
		}

		public boolean sawRedlockKeys() {
			return this.sawRedlockKeys;
		}

	}

	static class ShortLease {

		@DistributedLock(name = "short", redlock = true, leaseTime = "100ms")
		public void run() {
		}

	}

}
