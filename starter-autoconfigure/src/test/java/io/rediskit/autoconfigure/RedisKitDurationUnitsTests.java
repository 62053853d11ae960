package io.rediskit.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import io.rediskit.autoconfigure.lock.LockAutoConfiguration;
import io.rediskit.autoconfigure.queue.QueueAutoConfiguration;
import io.rediskit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.rediskit.autoconfigure.support.InvalidPropertiesException;
import io.rediskit.autoconfigure.support.InvalidPropertiesException.Violation;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A duration under {@code redis-kit} written as a bare number, which Spring reads as milliseconds, fails startup
 * naming it, in a group and in a map entry; durations with a unit, zero, numbers that are not durations, and a
 * duration that declares its unit with {@code @DurationUnit} start.
 */
class RedisKitDurationUnitsTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				LockAutoConfiguration.class, RateLimitAutoConfiguration.class, QueueAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@Test
	void aDurationWithoutAUnitFailsStartupNamingIt() {
		this.runner
			.withPropertyValues("redis-kit.lock.watchdog-timeout=30", "redis-kit.rate-limit.limiters.login.limit=5",
					"redis-kit.rate-limit.limiters.login.period=15", "redis-kit.queue.queues.emails.poll-interval=100",
					"redis-kit.outage.probe-interval=2000")
			.run((context) -> {
				assertThat(context).getFailure().isInstanceOf(InvalidPropertiesException.class);
				InvalidPropertiesException failure = (InvalidPropertiesException) context.getStartupFailure();
				assertThat(failure.getViolations()).extracting(Violation::property)
					.containsExactlyInAnyOrder("redis-kit.lock.watchdog-timeout",
							"redis-kit.rate-limit.limiters.login.period", "redis-kit.queue.queues.emails.poll-interval",
							"redis-kit.outage.probe-interval");
				assertThat(failure.getViolations()).allSatisfy((violation) -> assertThat(violation.reason())
					.startsWith(violation.property() + " is a duration written without a unit")
					.contains("Spring reads as milliseconds")
					.contains("15m"));
			});
	}

	@Test
	void durationsWithAUnitZeroAndNumbersThatAreNotDurationsStart() {
		this.runner
			.withPropertyValues("redis-kit.lock.watchdog-timeout=30s", "redis-kit.rate-limit.limiters.login.limit=5",
					"redis-kit.rate-limit.limiters.login.period=PT15M", "redis-kit.queue.queues.emails.poll-interval=100ms",
					"redis-kit.queue.queues.emails.max-deliveries=3", "redis-kit.lock.default-wait-time=0")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aDurationThatDeclaresItsUnitTakesABareNumber() {
		// The check alone, on a properties type of redis-kit's kind, which the group names check would refuse.
		new ApplicationContextRunner().withUserConfiguration(WithUnit.class)
			.withPropertyValues("redis-kit.with-unit.timeout=30", "redis-kit.with-unit.other=30")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(WithUnitProperties.class).getTimeout()).isEqualTo(Duration.ofSeconds(30));
				try {
					RedisKitDurationUnits.check(context);
					throw new AssertionError("the undeclared duration was not refused");
				}
				catch (InvalidPropertiesException ex) {
					assertThat(ex.getViolations()).extracting(Violation::property)
						.containsExactly("redis-kit.with-unit.other");
				}
			});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(WithUnitProperties.class)
	static class WithUnit {

	}

	@ConfigurationProperties("redis-kit.with-unit")
	static class WithUnitProperties {

		@DurationUnit(ChronoUnit.SECONDS)
		private Duration timeout = Duration.ofSeconds(1);

		private Duration other = Duration.ofSeconds(1);

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

		public Duration getOther() {
			return this.other;
		}

		public void setOther(Duration other) {
			this.other = other;
		}

	}

}
