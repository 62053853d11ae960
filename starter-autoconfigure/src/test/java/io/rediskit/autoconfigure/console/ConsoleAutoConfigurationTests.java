package io.rediskit.autoconfigure.console;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.instance.InstanceRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Wiring of the console, without Redis (nothing connects before a request): off unless enabled and only in a
 * web application, one set of routes per web stack, and startup failures that name the property.
 */
@ExtendWith(OutputCaptureExtension.class)
class ConsoleAutoConfigurationTests {

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(DataRedisAutoConfiguration.class,
			RedisKitAutoConfiguration.class, InstancesAutoConfiguration.class, ConsoleAutoConfiguration.class);

	private final WebApplicationContextRunner servlet = new WebApplicationContextRunner()
		.withConfiguration(CONFIGURATIONS);

	@Test
	void offUnlessEnabled() {
		this.servlet.run((context) -> assertThat(context).doesNotHaveBean(ConsoleData.class));
	}

	@Test
	void notInAnApplicationWithoutAWebServer() {
		new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withPropertyValues("redis-kit.console.enabled=true")
			.run((context) -> assertThat(context).doesNotHaveBean(ConsoleData.class));
	}

	@Test
	void everyApplicationWithTheConsoleEnabledKeepsAHeartbeatWebServerOrNot() {
		ApplicationContextRunner worker = new ApplicationContextRunner().withConfiguration(CONFIGURATIONS);
		worker.run((context) -> assertThat(context).doesNotHaveBean(InstanceRegistry.class));
		worker.withPropertyValues("redis-kit.console.enabled=true", "spring.application.name=billing")
			.run((context) -> {
				InstanceRegistry instances = context.getBean(InstanceRegistry.class);
				assertThat(instances.self().application()).isEqualTo("billing");
				assertThat(instances.self().pid()).isEqualTo(ProcessHandle.current().pid());
				assertThat(instances.interval()).isEqualTo(Duration.ofSeconds(5));
				assertThat(instances.goneAfter()).isEqualTo(Duration.ofSeconds(15));
				assertThat(instances.retention()).isEqualTo(Duration.ofMinutes(10));
			});
		worker.withPropertyValues("redis-kit.console.enabled=true", "redis-kit.console.heartbeat.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(InstanceRegistry.class));
	}

	@Test
	void servletRoutesWithTheMeterSampler() {
		this.servlet.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("redis-kit.console.enabled=true")
			.run((context) -> {
				assertThat(context).hasBean("redisKitConsoleRoutes").hasSingleBean(ConsoleMetrics.class);
				assertThat(context.getBean("redisKitConsoleRoutes"))
					.isInstanceOf(org.springframework.web.servlet.function.RouterFunction.class);
				// Spring Security is on this module's test class path: roles decide, actions off by default.
				ConsoleAccess access = context.getBean(ConsoleAccess.class);
				assertThat(access.security()).isTrue();
				assertThat(access.actionsAllowed()).isFalse();
			});
	}

	@Test
	void reactiveRoutes() {
		new ReactiveWebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withPropertyValues("redis-kit.console.enabled=true")
			.run((context) -> {
				assertThat(context.getBean("redisKitConsoleRoutes"))
					.isInstanceOf(org.springframework.web.reactive.function.server.RouterFunction.class);
				assertThat(context).doesNotHaveBean(ConsoleMetrics.class);
			});
	}

	@Test
	void withoutSpringSecurityTheStartupLogWarnsAndActionsNeedTheOptIn(CapturedOutput output) {
		WebApplicationContextRunner withoutSecurity = this.servlet
			.withClassLoader(new FilteredClassLoader("org.springframework.security."))
			.withPropertyValues("redis-kit.console.enabled=true", "redis-kit.console.actions.enabled=true");
		withoutSecurity.run((context) -> {
			ConsoleAccess access = context.getBean(ConsoleAccess.class);
			assertThat(access.security()).isFalse();
			assertThat(access.actionsAllowed()).isFalse();
		});
		assertThat(output).contains("redis-kit console at /redis-kit: Spring Security is not on the class path, so "
				+ "anyone who reaches the console can read it; read-only: actions are enabled but Spring Security is "
				+ "not on the class path");
		withoutSecurity.withPropertyValues("redis-kit.console.actions.allow-without-security=true")
			.run((context) -> assertThat(context.getBean(ConsoleAccess.class).actionsAllowed()).isTrue());
		assertThat(output).contains("actions enabled WITHOUT Spring Security "
				+ "(redis-kit.console.actions.allow-without-security=true)");
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			redis-kit.console.path=redis-kit          | redis-kit.console.path must be one or more /segments
			redis-kit.console.path=/redis-kit/        | redis-kit.console.path must be one or more /segments
			redis-kit.console.path=/a/**              | redis-kit.console.path must be one or more /segments
			redis-kit.console.role=ROLE_ADMIN         | redis-kit.console.role must be a role name without the ROLE_ prefix
			redis-kit.console.action-role=            | redis-kit.console.action-role must be a role name without the ROLE_ prefix
			redis-kit.console.sample-interval=100ms   | redis-kit.console.sample-interval must be from 1s to 1h, was 100ms
			redis-kit.console.samples=1               | redis-kit.console.samples must be from 2 to 10000, was 1
			redis-kit.console.dead-letters-per-page=0 | redis-kit.console.dead-letters-per-page must be from 1 to 500, was 0
			redis-kit.console.show-payload=true       | show-payload
			redis-kit.console.heartbeat.interval=500ms | redis-kit.console.heartbeat.interval must be from 1s to 1m, was 500ms
			redis-kit.console.heartbeat.retention=10s | redis-kit.console.heartbeat.retention must be from three heartbeat intervals to 1d, was 10s
			""")
	void badSettingsFailStartupNamingTheProperty(String property, String message) {
		this.servlet.withPropertyValues("redis-kit.console.enabled=true", property).run((context) -> {
			assertThat(context).hasFailed();
			StringBuilder messages = new StringBuilder();
			for (Throwable ex = context.getStartupFailure(); ex != null; ex = ex.getCause()) {
				messages.append(ex.getMessage()).append('\n');
			}
			assertThat(messages.toString()).contains(message);
		});
	}

}
