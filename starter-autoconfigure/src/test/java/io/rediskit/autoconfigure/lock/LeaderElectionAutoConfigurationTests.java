package io.rediskit.autoconfigure.lock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.support.StartupFailures;
import io.rediskit.leader.LeaderElections;
import io.rediskit.leader.LeadershipEvent;
import io.rediskit.leader.LeadershipGrantedEvent;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;

/** Wiring of leader election: roles from YAML, events to the context, meters, the actuator view, switches. */
class LeaderElectionAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				LockAutoConfiguration.class, LockEndpointAutoConfiguration.class,
				LeaderElectionAutoConfiguration.class, LeaderElectionMetricsAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@Test
	void standsForTheConfiguredRolesAndPublishesEvents() {
		this.runner.withUserConfiguration(Recorder.class)
			.withPropertyValues("redis-kit.lock.leader.roles=nightly-billing", "redis-kit.lock.leader.instance-name=node-1",
					"redis-kit.lock.leader.retry-interval=50ms", "redis-kit.lock.watchdog-timeout=3s",
					"management.endpoints.web.exposure.include=rediskitlock")
			.run((context) -> {
				LeaderElections elections = context.getBean(LeaderElections.class);
				assertThat(elections.instance()).isEqualTo("node-1");
				assertThat(elections.retryInterval()).isEqualTo(Duration.ofMillis(50));
				List<LeadershipEvent> events = context.getBean(Recorder.class).events;
				long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
				while (events.isEmpty() && System.nanoTime() < deadline) {
					Thread.onSpinWait();
				}
				assertThat(events).singleElement().isInstanceOf(LeadershipGrantedEvent.class);
				long term = events.get(0).term();
				assertThat(elections.elections()).singleElement()
					.satisfies((election) -> assertThat(election.term()).contains(term));
				RedisLocksEndpoint.HeldLocksDescriptor view = context.getBean(RedisLocksEndpoint.class).heldLocks(true);
				assertThat(view.leaders()).containsExactly(
						new RedisLocksEndpoint.LeaderDescriptor("nightly-billing", true, "node-1", term));
				assertThat(view.locks()).singleElement()
					.satisfies((lock) -> assertThat(lock.name()).isEqualTo("leader:nightly-billing"));
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("rediskit.lock.leader.leading").tag("role", "nightly-billing").gauge().value())
					.isEqualTo(1.0);
				assertThat(meters.get("rediskit.lock.leader.granted").counter().count()).isEqualTo(1.0);
			});
	}

	@Test
	void switchesOff() {
		this.runner.withPropertyValues("redis-kit.lock.leader.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LeaderElections.class));
		this.runner.withPropertyValues("redis-kit.lock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LeaderElections.class));
	}

	@Test
	void badValuesFailStartupNamingTheProperty() {
		this.runner.withPropertyValues("redis-kit.lock.leader.retry-interval=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redis-kit.lock.leader.retry-interval"));
		this.runner.withPropertyValues("redis-kit.lock.leader.instance-name=a/b")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redis-kit.lock.leader.instance-name"));
		this.runner.withPropertyValues("redis-kit.lock.leader.instance-name=billing 1")
			.run((context) -> assertThat(StartupFailures.analyze(context).getDescription())
				.contains("Property: redis-kit.lock.leader.instance-name\n")
				.contains("Reason: redis-kit.lock.leader.instance-name must be 1 to 64 letters, digits, '-' or '_', starting"
						+ " with a letter or digit, was 'billing 1'"));
		this.runner.withPropertyValues("redis-kit.lock.leader.roles=nightly.billing")
			.run((context) -> assertThat(StartupFailures.analyze(context).getDescription())
				.contains("Reason: redis-kit.lock.leader.roles[0] must be 1 to 64 letters, digits, '-' or '_', starting"
						+ " with a letter or digit, was 'nightly.billing'"));
	}

	@Test
	void eachInstanceGoesByANameOfItsOwnByDefault() {
		this.runner.withPropertyValues("spring.application.name=billing.web").run((context) -> {
			String instance = context.getBean(LeaderElections.class).instance();
			assertThat(instance).startsWith("billing-web-")
				.endsWith("-" + ProcessHandle.current().pid())
				.matches("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");
		});
		this.runner.run((context) -> assertThat(context.getBean(LeaderElections.class).instance())
			.endsWith("-" + ProcessHandle.current().pid())
			.matches("[A-Za-z0-9][A-Za-z0-9_-]{0,63}"));
	}

	@Configuration(proxyBeanMethods = false)
	static class Recorder {

		final List<LeadershipEvent> events = new CopyOnWriteArrayList<>();

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@EventListener
		void on(LeadershipEvent event) {
			this.events.add(event);
		}

	}

}
