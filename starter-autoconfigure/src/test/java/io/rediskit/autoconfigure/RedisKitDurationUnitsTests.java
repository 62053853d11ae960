package io.rediskit.autoconfigure;

import io.rediskit.autoconfigure.lock.LockAutoConfiguration;
import io.rediskit.autoconfigure.queue.QueueAutoConfiguration;
import io.rediskit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.rediskit.autoconfigure.support.InvalidPropertiesException;
import io.rediskit.autoconfigure.support.InvalidPropertiesException.Violation;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A duration under {@code redis-kit} written as a bare number, which Spring reads as milliseconds, fails startup
 * naming it, in a group and in a map entry; durations with a unit, zero, and numbers that are
 * not durations start.
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

}
