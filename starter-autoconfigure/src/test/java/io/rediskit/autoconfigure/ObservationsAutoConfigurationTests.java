package io.rediskit.autoconfigure;

import java.time.Duration;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.rediskit.autoconfigure.lock.LockAutoConfiguration;
import io.rediskit.autoconfigure.queue.QueueAutoConfiguration;
import io.rediskit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.RedisLock;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueSpec;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.support.DefaultRedisKitObservationConvention;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservationConvention;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** The application's observation registry and convention reach every area; without a registry nothing observes. */
class ObservationsAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				RateLimitAutoConfiguration.class, LockAutoConfiguration.class, QueueAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@Test
	void withoutAnObservationRegistryNothingIsObserved() {
		this.runner.run((context) -> assertThat(context.getBean(Observations.class).isNoop()).isTrue());
	}

	@Test
	void theApplicationsRegistryAndConventionReachEveryArea() {
		TestObservationRegistry observed = TestObservationRegistry.create();
		this.runner.withBean(TestObservationRegistry.class, () -> observed)
			.withBean(RedisKitObservationConvention.class, TenantConvention::new)
			.run((context) -> {
				redis.flushAll();
				context.getBean(RateLimiterRegistry.class)
					.create("login", RateLimitSpec.of(RateLimitAlgorithm.GCRA, 5, Duration.ofMinutes(1)))
					.tryAcquire("alice");
				RedisLock lock = context.getBean(LockRegistry.class).getLock("orders");
				assertThat(lock.tryLock(Duration.ofSeconds(5))).isTrue();
				lock.unlock();
				context.getBean(QueueRegistry.class).create("jobs", QueueSpec.defaults(), String.class).enqueue("a");
				TestObservationRegistryAssert.assertThat(observed)
					.hasObservationWithNameEqualTo("rediskit.ratelimit.decision")
					.that()
					.hasLowCardinalityKeyValue("outcome", "allowed")
					.hasLowCardinalityKeyValue("tenant", "acme");
				TestObservationRegistryAssert.assertThat(observed)
					.hasNumberOfObservationsWithNameEqualTo("rediskit.lock.wait", 1)
					.hasNumberOfObservationsWithNameEqualTo("rediskit.lock.hold", 1)
					.hasNumberOfObservationsWithNameEqualTo("rediskit.queue.enqueue", 1)
					.forAllObservationsWithNameEqualTo("rediskit.lock.hold",
							(hold) -> hold.hasLowCardinalityKeyValue("tenant", "acme"));
			});
	}

	/** An application's convention: the default tags and one of its own. */
	static final class TenantConvention extends DefaultRedisKitObservationConvention {

		@Override
		public KeyValues getLowCardinalityKeyValues(Observation.Context context) {
			return super.getLowCardinalityKeyValues(context).and("tenant", "acme");
		}

	}

}
