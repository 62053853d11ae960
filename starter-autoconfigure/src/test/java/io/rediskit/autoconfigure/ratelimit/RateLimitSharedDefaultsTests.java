package io.rediskit.autoconfigure.ratelimit;

import java.net.ServerSocket;
import java.time.Duration;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.support.StartupFailures;
import io.rediskit.ratelimit.FailurePolicy;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * {@code redis-kit.rate-limit.algorithm} and {@code redis-kit.rate-limit.failure-policy}: the defaults of every
 * limiter, a limiter's own value winning; bad values at either level fail startup naming the property, and the
 * limiters behave by the value they inherit.
 */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitSharedDefaultsTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(DataRedisAutoConfiguration.class,
			RedisKitAutoConfiguration.class, RateLimitAutoConfiguration.class);

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(),
				"redis-kit.rate-limit.limiters.login.limit=3", "redis-kit.rate-limit.limiters.login.period=1h",
				"redis-kit.rate-limit.limiters.search.limit=3", "redis-kit.rate-limit.limiters.search.period=1h");

	@BeforeEach
	void clean() {
		redis.flushAll();
	}

	@Test
	void withoutDefaultsEveryLimiterHasTheBuiltInOnes() {
		this.runner.run((context) -> {
			RateLimitProperties properties = context.getBean(RateLimitProperties.class);
			assertThat(properties.getAlgorithm()).isEqualTo(RateLimitAlgorithm.GCRA);
			assertThat(properties.getFailurePolicy()).isEqualTo(FailurePolicy.FAIL_OPEN);
			assertThat(properties.getLimiters().get("login").getAlgorithm()).isNull();
			assertThat(properties.getLimiters().get("login").getFailurePolicy()).isNull();
			assertThat(context.getBean(RateLimiterRegistry.class).get("login").spec())
				.isEqualTo(RateLimitSpec.of(RateLimitAlgorithm.GCRA, 3, Duration.ofHours(1)));
		});
	}

	@Test
	void limitersInheritTheGroupsDefaultsAndTheirOwnValuesWin() {
		this.runner
			.withPropertyValues("redis-kit.rate-limit.algorithm=sliding-log",
					"redis-kit.rate-limit.failure-policy=fail-closed",
					"redis-kit.rate-limit.limiters.search.algorithm=token-bucket",
					"redis-kit.rate-limit.limiters.search.burst=5",
					"redis-kit.rate-limit.limiters.search.failure-policy=fail-open")
			.run((context) -> {
				RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
				assertThat(registry.get("login").spec()).isEqualTo(new RateLimitSpec(RateLimitAlgorithm.SLIDING_LOG, 3,
						Duration.ofHours(1), null, FailurePolicy.FAIL_CLOSED));
				assertThat(registry.get("search").spec()).isEqualTo(new RateLimitSpec(RateLimitAlgorithm.TOKEN_BUCKET,
						3, Duration.ofHours(1), 5L, FailurePolicy.FAIL_OPEN));
			});
	}

	@Test
	void aChangedDefaultAppliesOnTheNextGet() {
		this.runner.run((context) -> {
			RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
			assertThat(registry.get("login").spec().algorithm()).isEqualTo(RateLimitAlgorithm.GCRA);
			// What a configuration refresh does: rebind the same properties bean.
			context.getBean(RateLimitProperties.class).setAlgorithm(RateLimitAlgorithm.FIXED_WINDOW);
			assertThat(registry.get("login").spec().algorithm()).isEqualTo(RateLimitAlgorithm.FIXED_WINDOW);
		});
	}

	@Test
	void aLimiterCountsWithTheAlgorithmItInherits() {
		this.runner
			.withPropertyValues("redis-kit.rate-limit.algorithm=sliding-log",
					"redis-kit.rate-limit.limiters.search.algorithm=fixed-window")
			.run((context) -> {
				RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
				for (int i = 0; i < 3; i++) {
					assertThat(registry.get("login").tryAcquire("ada").allowed()).isTrue();
					assertThat(registry.get("search").tryAcquire("ada").allowed()).isTrue();
				}
				assertThat(registry.get("login").tryAcquire("ada").allowed()).isFalse();
				assertThat(registry.get("search").tryAcquire("ada").allowed()).isFalse();
				// Each algorithm keeps its own keys: the inherited one for login, its own for search.
				assertThat(redis.server().command("ZCARD", "rk:ratelimit:sliding-log:{login:ada}")).isEqualTo(3L);
				assertThat(redis.server().command("EXISTS", "rk:ratelimit:fixed-window:{search:ada}")).isEqualTo(1L);
				assertThat(redis.server().command("EXISTS", "rk:ratelimit:sliding-log:{search:ada}")).isEqualTo(0L);
			});
	}

	@Test
	void whileRedisIsDownALimiterAnswersByTheFailurePolicyItInherits() throws Exception {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0)) {
			closedPort = socket.getLocalPort();
		}
		this.runner
			.withPropertyValues("spring.data.redis.port=" + closedPort, "spring.data.redis.connect-timeout=500ms",
					"redis-kit.rate-limit.failure-policy=fail-closed",
					"redis-kit.rate-limit.limiters.search.failure-policy=fail-open")
			.run((context) -> {
				RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
				assertThat(registry.get("login").tryAcquire("ada").outcome())
					.isEqualTo(RateLimitDecision.Outcome.ERROR_REJECTED);
				assertThat(registry.get("search").tryAcquire("ada").outcome())
					.isEqualTo(RateLimitDecision.Outcome.ERROR_ALLOWED);
			});
	}

	@Test
	void anUnknownDefaultAlgorithmFailsStartupNamingTheProperty() {
		this.runner.withPropertyValues("redis-kit.rate-limit.algorithm=leaky-bucket")
			.run((context) -> assertThat(StartupFailures.analyze(context).getDescription())
				.contains("Property: redis-kit.rate-limit.algorithm\n")
				.contains("Reason: 'leaky-bucket' is not one of sliding-log, sliding-window, fixed-window,"
						+ " token-bucket, gcra"));
	}

	@Test
	void anUnknownDefaultFailurePolicyFailsStartupNamingTheProperty() {
		this.runner.withPropertyValues("redis-kit.rate-limit.failure-policy=fail-sometimes")
			.run((context) -> assertThat(StartupFailures.analyze(context).getDescription())
				.contains("Property: redis-kit.rate-limit.failure-policy\n")
				.contains("Reason: 'fail-sometimes' is not one of fail-open, fail-closed"));
	}

	@Test
	void aBurstUnderAnInheritedAlgorithmWithoutOneFailsStartupNamingTheLimitersBurst() {
		this.runner
			.withPropertyValues("redis-kit.rate-limit.algorithm=sliding-log",
					"redis-kit.rate-limit.limiters.login.burst=5")
			.run((context) -> assertThat(StartupFailures.analyze(context).getDescription())
				.contains("Property: redis-kit.rate-limit.limiters.login.burst\n    Value: \"5\"\n")
				.contains("Reason: redis-kit.rate-limit.limiters.login.burst applies to token-bucket and gcra only,"
						+ " not to sliding-log; remove it or change the algorithm (limiter 'login', whose algorithm is"
						+ " redis-kit.rate-limit.algorithm)"));
		// Its own algorithm wins over the default: the same burst is then valid.
		this.runner
			.withPropertyValues("redis-kit.rate-limit.algorithm=sliding-log",
					"redis-kit.rate-limit.limiters.login.algorithm=gcra", "redis-kit.rate-limit.limiters.login.burst=5")
			.run((context) -> assertThat(context.getBean(RateLimiterRegistry.class).get("login").spec().burst())
				.isEqualTo(5L));
	}

	@Test
	void aBadDefaultInYamlIsReportedWithItsOrigin(CapturedOutput output) {
		assertThatException().isThrownBy(() -> new SpringApplicationBuilder(MinimalApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.port=" + redis.server().port(), "spring.main.banner-mode=off",
					"spring.config.name=invalid-rate-limit-defaults")
			.run()
			.close());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Property: redis-kit.rate-limit.failure-policy")
			.contains("invalid-rate-limit-defaults.yml");
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class MinimalApplication {

	}

}
