package io.rediskit.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.ratelimit.FailurePolicy;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimitListener;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimiter;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.support.KeyNaming;
import io.rediskit.testsupport.RedisServerExtension;
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
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Wiring of the rate limit auto-configurations. */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(DataRedisAutoConfiguration.class,
			RedisKitAutoConfiguration.class, RateLimitAutoConfiguration.class, RateLimitMetricsAutoConfiguration.class,
			RateLimitWebAutoConfiguration.class);

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@Test
	void providesTheRateLimitBeansByDefault() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(RateLimiterRegistry.class)
				.hasSingleBean(RateLimitedAdvisor.class)
				.hasSingleBean(RateLimitProperties.class)
				.doesNotHaveBean(MicrometerRateLimitListener.class)
				.doesNotHaveBean(RateLimitExceptionHandler.class);
			RateLimitProperties properties = context.getBean(RateLimitProperties.class);
			assertThat(properties.isEnabled()).isTrue();
			assertThat(properties.getLimiters()).isEmpty();
			assertThat(properties.getWeb().isEnabled()).isTrue();
			assertThat(properties.getWeb().getHeaders().isEnabled()).isTrue();
			assertThat(context.getBean(RateLimitedAdvisor.class).getOrder()).isEqualTo(RateLimitedAdvisor.DEFAULT_ORDER);
		});
	}

	@Test
	void configuredLimitersReachTheRegistry() {
		this.runner
			.withPropertyValues("redis-kit.rate-limit.limiters.login.algorithm=sliding-log",
					"redis-kit.rate-limit.limiters.login.limit=5", "redis-kit.rate-limit.limiters.login.period=15m",
					"redis-kit.rate-limit.limiters.login.failure-policy=fail-closed",
					"redis-kit.rate-limit.limiters.api.limit=100", "redis-kit.rate-limit.limiters.api.period=1s",
					"redis-kit.rate-limit.limiters.api.burst=20",
					"redis-kit.rate-limit.limiters.uploads.algorithm=TOKEN_BUCKET",
					"redis-kit.rate-limit.limiters.uploads.limit=10", "redis-kit.rate-limit.limiters.uploads.period=PT1H")
			.run((context) -> {
				RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
				assertThat(registry.get("login").spec()).isEqualTo(new RateLimitSpec(RateLimitAlgorithm.SLIDING_LOG, 5,
						Duration.ofMinutes(15), null, FailurePolicy.FAIL_CLOSED));
				assertThat(registry.get("api").spec()).isEqualTo(
						new RateLimitSpec(RateLimitAlgorithm.GCRA, 100, Duration.ofSeconds(1), 20L, FailurePolicy.FAIL_OPEN));
				assertThat(registry.get("uploads").spec())
					.isEqualTo(RateLimitSpec.of(RateLimitAlgorithm.TOKEN_BUCKET, 10, Duration.ofHours(1)));
				assertThat(registry.get("login").tryAcquire("ada").allowed()).isTrue();
				assertThat(redis.server().command("EXISTS", "rk:ratelimit:sliding-log:{login:ada}")).isEqualTo(1L);
				assertThatIllegalArgumentException().isThrownBy(() -> registry.get("unknown"))
					.withMessageContaining("redis-kit.rate-limit.limiters.unknown");
				assertThatIllegalArgumentException().isThrownBy(() -> registry.get("uplods"))
					.withMessage("No rate limiter named 'uplods' (did you mean 'uploads'?): configure"
							+ " redis-kit.rate-limit.limiters.uplods or create it in code first");
			});
	}

	@Test
	void changedPropertiesApplyOnTheNextGet() {
		this.runner
			.withPropertyValues("redis-kit.rate-limit.limiters.search.limit=3",
					"redis-kit.rate-limit.limiters.search.period=1h")
			.run((context) -> {
				RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
				RateLimiter limiter = registry.get("search");
				assertThat(limiter.spec().limit()).isEqualTo(3);
				RateLimitProperties.Limiter configured = context.getBean(RateLimitProperties.class)
					.getLimiters()
					.get("search");
				RateLimitSpec first = limiter.spec();
				// What a configuration refresh does: rebind the same properties bean.
				configured.setLimit(7L);
				configured.setPeriod(Duration.ofMinutes(1));
				assertThat(registry.get("search")).isSameAs(limiter);
				assertThat(limiter.spec()).isEqualTo(RateLimitSpec.of(RateLimitAlgorithm.GCRA, 7, Duration.ofMinutes(1)));
				assertThat(limiter.spec()).isNotEqualTo(first);
				// What a Spring Cloud refresh does: bind the changed environment onto the same bean.
				RateLimitProperties properties = context.getBean(RateLimitProperties.class);
				new Binder(new MapConfigurationPropertySource(Map.of("redis-kit.rate-limit.limiters.search.limit", "9",
						"redis-kit.rate-limit.limiters.search.period", "2h",
						"redis-kit.rate-limit.limiters.search.algorithm", "token-bucket")))
					.bind("redis-kit.rate-limit", Bindable.ofInstance(properties));
				assertThat(registry.get("search").spec())
					.isEqualTo(RateLimitSpec.of(RateLimitAlgorithm.TOKEN_BUCKET, 9, Duration.ofHours(2)));
			});
	}

	@Test
	void canBeSwitchedOff() {
		this.runner.withPropertyValues("redis-kit.rate-limit.enabled=false")
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.run((context) -> assertThat(context).doesNotHaveBean(RateLimiterRegistry.class)
				.doesNotHaveBean(RateLimitedAdvisor.class)
				.doesNotHaveBean(MicrometerRateLimitListener.class));
	}

	@Test
	void backsOffWithoutRedis() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RedisKitAutoConfiguration.class, RateLimitAutoConfiguration.class))
			.run((context) -> assertThat(context).doesNotHaveBean(RateLimiterRegistry.class));
	}

	@Test
	void userRegistryWins() {
		this.runner.withUserConfiguration(UserRegistry.class).run((context) -> {
			assertThat(context).hasSingleBean(RateLimiterRegistry.class).hasSingleBean(RateLimitedAdvisor.class);
			assertThat(context.getBean(RateLimiterRegistry.class)).isSameAs(context.getBean("userRegistry"));
		});
	}

	@Test
	void everyListenerBeanIsTold() {
		RecordingListener first = new RecordingListener();
		RecordingListener second = new RecordingListener();
		this.runner.withBean("first", RateLimitListener.class, () -> first)
			.withBean("second", RateLimitListener.class, () -> second)
			.withPropertyValues("redis-kit.rate-limit.limiters.listened.limit=1",
					"redis-kit.rate-limit.limiters.listened.period=1h")
			.run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("listened");
				limiter.tryAcquire("k");
				limiter.tryAcquire("k");
				assertThat(first.outcomes).containsExactly(RateLimitDecision.Outcome.ALLOWED,
						RateLimitDecision.Outcome.REJECTED);
				assertThat(second.outcomes).isEqualTo(first.outcomes);
			});
	}

	@Test
	void metricsWhenAMeterRegistryExists() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("redis-kit.rate-limit.limiters.metered.limit=1",
					"redis-kit.rate-limit.limiters.metered.period=1h")
			.run((context) -> {
				assertThat(context).hasSingleBean(MicrometerRateLimitListener.class);
				RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("metered");
				limiter.tryAcquire("42");
				limiter.tryAcquire("42");
				limiter.tryAcquire("42");
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get("rediskit.ratelimit.decisions")
					.tags("limiter", "metered", "result", "allowed")
					.counter()
					.count()).isEqualTo(1);
				assertThat(registry.get("rediskit.ratelimit.decisions")
					.tags("limiter", "metered", "result", "rejected")
					.counter()
					.count()).isEqualTo(2);
				assertThat(registry.get("rediskit.ratelimit.latency").tag("limiter", "metered").timer().count())
					.isEqualTo(3);
				assertThat(registry.get("rediskit.ratelimit.decisions").counter().getId().getDescription()).isNotBlank();
				assertThat(registry.get("rediskit.ratelimit.latency").timer().getId().getDescription()).isNotBlank();
				assertThat(registry.getMeters()).allSatisfy((meter) -> assertThat(meter.getId().getTags())
					.noneMatch((tag) -> tag.getValue().contains("42")));
			});
	}

	@Test
	void tooManyRequestsHandlerInServletAndReactiveApplications() {
		WebApplicationContextRunner servlet = new WebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withPropertyValues("spring.data.redis.port=" + redis.server().port());
		servlet.run((context) -> assertThat(context).hasSingleBean(RateLimitExceptionHandler.class));
		servlet.withPropertyValues("redis-kit.rate-limit.web.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RateLimitExceptionHandler.class)
				.hasSingleBean(RateLimiterRegistry.class));
		servlet.withPropertyValues("redis-kit.rate-limit.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RateLimitExceptionHandler.class));
		ReactiveWebApplicationContextRunner reactive = new ReactiveWebApplicationContextRunner()
			.withConfiguration(CONFIGURATIONS)
			.withPropertyValues("spring.data.redis.port=" + redis.server().port());
		reactive.run((context) -> assertThat(context).hasSingleBean(RateLimitExceptionHandler.class));
		reactive.withPropertyValues("redis-kit.rate-limit.web.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RateLimitExceptionHandler.class));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			redis-kit.rate-limit.limiters.login.limit=0        | redis-kit.rate-limit.limiters.login.limit must be at least 1, was 0
			redis-kit.rate-limit.limiters.login.period=-1s     | redis-kit.rate-limit.limiters.login.period must be at least 1ms
			redis-kit.rate-limit.limiters.login.period=0       | redis-kit.rate-limit.limiters.login.period must be at least 1ms
			redis-kit.rate-limit.limiters.login.burst=5        | redis-kit.rate-limit.limiters.login.burst applies to token-bucket and gcra only, not to sliding-log
			redis-kit.rate-limit.limiters.login.algorithm=leaky | redis-kit.rate-limit.limiters.login.algorithm
			redis-kit.rate-limit.limiters.login.period=         | [redis-kit.rate-limit.limiters.login.period] were left unbound
			redis-kit.rate-limit.limiters[bad name].limit=1     | redis-kit.rate-limit.limiters[bad name] has an invalid limiter name
			redis-kit.rate-limit.limiters[-login].limit=1       | redis-kit.rate-limit.limiters[-login] has an invalid limiter name
			redis-kit.rate-limit.limiters.login.period=100000d  | redis-kit.rate-limit.limiters.login.period must be at most 18250 days
			redis-kit.rate-limit.limiters.login.limit=9007199254740993 | redis-kit.rate-limit.limiters.login.limit must be at most 9007199254740992
			redis-kit.rate-limit.limiters.login.period=9223372036854775807s | redis-kit.rate-limit.limiters.login.period must be at most
			""")
	void invalidPropertiesFailNamingTheProperty(String property, String message) {
		this.runner
			.withPropertyValues("redis-kit.rate-limit.limiters.login.algorithm=sliding-log",
					"redis-kit.rate-limit.limiters.login.limit=5", "redis-kit.rate-limit.limiters.login.period=1h")
			.withPropertyValues(property)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(messages(context.getStartupFailure())).contains(message);
			});
	}

	@Test
	void aLimiterWithoutALimitFailsNamingTheProperty() {
		this.runner.withPropertyValues("redis-kit.rate-limit.limiters.login.period=1h").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure()))
				.contains("redis-kit.rate-limit.limiters.login.limit is required");
		});
	}

	@Test
	void anUnknownAlgorithmFailsStartupListingTheValidValues(CapturedOutput output) {
		assertThatException().isThrownBy(() -> new SpringApplicationBuilder(MinimalApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.port=" + redis.server().port(), "spring.main.banner-mode=off",
					"redis-kit.rate-limit.limiters.login.limit=5", "redis-kit.rate-limit.limiters.login.period=1h",
					"redis-kit.rate-limit.limiters.login.algorithm=leaky-bucket")
			.run()
			.close());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("redis-kit.rate-limit.limiters.login.algorithm")
			.contains("leaky-bucket")
			.contains("Set redis-kit.rate-limit.limiters.login.algorithm to one of:");
		String validValues = output.getOut().substring(output.getOut().indexOf("to one of:"));
		// As YAML takes them, not as Java names them.
		for (RateLimitAlgorithm algorithm : RateLimitAlgorithm.values()) {
			assertThat(validValues).contains("\n    " + algorithm.name().toLowerCase(Locale.ROOT).replace('_', '-'))
				.doesNotContain(algorithm.name());
		}
	}

	@Test
	void aValidationFailureReportNamesThePropertyAndTheAllowedAlgorithms(CapturedOutput output) {
		assertThatException().isThrownBy(() -> new SpringApplicationBuilder(MinimalApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.port=" + redis.server().port(), "spring.main.banner-mode=off",
					"redis-kit.rate-limit.limiters.login.limit=5", "redis-kit.rate-limit.limiters.login.period=1h",
					"redis-kit.rate-limit.limiters.login.algorithm=fixed-window",
					"redis-kit.rate-limit.limiters.login.burst=10")
			.run()
			.close());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("redis-kit.rate-limit.limiters.login.burst applies to token-bucket and gcra only");
	}

	@Test
	void invalidYamlFailsStartupNamingThePropertyAndItsOrigin(CapturedOutput output) {
		assertThatException().isThrownBy(() -> new SpringApplicationBuilder(MinimalApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.port=" + redis.server().port(), "spring.main.banner-mode=off",
					"spring.config.name=invalid-rate-limit")
			.run()
			.close());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Property: redis-kit.rate-limit.limiters.login.limit")
			.contains("redis-kit.rate-limit.limiters.login.limit must be at least 1, was 0")
			.contains("invalid-rate-limit.yml");
	}

	@Test
	void aLimiterNameWithADotFailsStartupNamingThePropertyAndItsOrigin(CapturedOutput output) {
		// Plain YAML reads "api.v1:" as limiter "api" with a setting "v1": it used to be dropped without a word.
		assertThatException().isThrownBy(() -> new SpringApplicationBuilder(MinimalApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.port=" + redis.server().port(), "spring.main.banner-mode=off",
					"spring.config.name=dotted-limiter")
			.run()
			.close());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Property: redis-kit.rate-limit.limiters.api.v1.limit")
			.contains("dotted-limiter.yml");
	}

	@Test
	void anyPropertyThatBindsToNothingFailsStartup() {
		this.runner
			.withPropertyValues("redis-kit.rate-limit.limiters.login.limit=5",
					"redis-kit.rate-limit.limiters.login.period=1h", "redis-kit.rate-limit.limiters.login.perod=2h")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(messages(context.getStartupFailure()))
					.contains("redis-kit.rate-limit.limiters.login.perod");
			});
	}

	private static String messages(Throwable failure) {
		StringBuilder all = new StringBuilder();
		for (Throwable ex = failure; ex != null; ex = ex.getCause()) {
			all.append(ex.getMessage()).append('\n');
		}
		return all.toString();
	}

	// Auto-configuration without component scanning, which would find the other tests' configurations.
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class MinimalApplication {

	}

	@Configuration(proxyBeanMethods = false)
	static class UserRegistry {

		@Bean
		RateLimiterRegistry userRegistry(RedisConnectionFactory connectionFactory) {
			return new RateLimiterRegistry(connectionFactory, KeyNaming.defaults(), RateLimitListener.NONE);
		}

	}

	static class RecordingListener implements RateLimitListener {

		final List<RateLimitDecision.Outcome> outcomes = new ArrayList<>();

		@Override
		public void onDecision(String limiterName, RateLimitDecision decision, Duration latency) {
			this.outcomes.add(decision.outcome());
		}

	}

}
