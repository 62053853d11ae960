package io.rediskit.autoconfigure;

import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.rediskit.autoconfigure.bitmap.BitmapAutoConfiguration;
import io.rediskit.autoconfigure.bloom.BloomAutoConfiguration;
import io.rediskit.autoconfigure.counter.CounterAutoConfiguration;
import io.rediskit.autoconfigure.geo.GeoAutoConfiguration;
import io.rediskit.autoconfigure.id.IdAutoConfiguration;
import io.rediskit.autoconfigure.keys.KeysAutoConfiguration;
import io.rediskit.autoconfigure.lock.LatchAutoConfiguration;
import io.rediskit.autoconfigure.lock.LockAutoConfiguration;
import io.rediskit.autoconfigure.lock.SemaphoreAutoConfiguration;
import io.rediskit.autoconfigure.queue.QueueAutoConfiguration;
import io.rediskit.autoconfigure.rank.RankAutoConfiguration;
import io.rediskit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.rediskit.autoconfigure.recent.RecentAutoConfiguration;
import io.rediskit.bitmap.BitmapRegistry;
import io.rediskit.bitmap.CheckInCalendarSpec;
import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.bloom.BloomFilterSpec;
import io.rediskit.counter.UniqueCounterRegistry;
import io.rediskit.counter.UniqueCounterSpec;
import io.rediskit.geo.GeoIndexRegistry;
import io.rediskit.geo.GeoIndexSpec;
import io.rediskit.geo.GeoPoint;
import io.rediskit.id.IdGeneratorRegistry;
import io.rediskit.id.IdGeneratorSpec;
import io.rediskit.keys.DeleteOptions;
import io.rediskit.keys.KeyScanOptions;
import io.rediskit.keys.KeyTools;
import io.rediskit.latch.LatchRegistry;
import io.rediskit.latch.RedisCountDownLatch;
import io.rediskit.lock.Lease;
import io.rediskit.lock.LockNotAcquiredException;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.RedisLock;
import io.rediskit.lock.RedisSemaphore;
import io.rediskit.lock.SemaphoreRegistry;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueSpec;
import io.rediskit.rank.LeaderboardRegistry;
import io.rediskit.rank.LeaderboardSpec;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.recent.RecentItemsRegistry;
import io.rediskit.recent.RecentItemsSpec;
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
				RateLimitAutoConfiguration.class, LockAutoConfiguration.class, QueueAutoConfiguration.class,
				SemaphoreAutoConfiguration.class, LatchAutoConfiguration.class, CounterAutoConfiguration.class,
				BitmapAutoConfiguration.class, BloomAutoConfiguration.class, GeoAutoConfiguration.class,
				IdAutoConfiguration.class, RankAutoConfiguration.class, RecentAutoConfiguration.class,
				KeysAutoConfiguration.class))
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

	@Test
	void theOperationAreasTheSemaphoresAndTheLatchesAreObservedToo() {
		TestObservationRegistry observed = TestObservationRegistry.create();
		this.runner.withBean(TestObservationRegistry.class, () -> observed).run((context) -> {
			redis.flushAll();
			context.getBean(UniqueCounterRegistry.class)
				.create("visitors", UniqueCounterSpec.daily(ZoneOffset.UTC))
				.add("alice");
			context.getBean(BitmapRegistry.class)
				.createCalendar("logins", CheckInCalendarSpec.of(ZoneOffset.UTC))
				.checkIn("alice", LocalDate.now(ZoneOffset.UTC));
			context.getBean(BloomFilterRegistry.class).create("seen", BloomFilterSpec.of(100, 0.01)).add("alice");
			context.getBean(GeoIndexRegistry.class)
				.create("bikes", GeoIndexSpec.unsharded())
				.put("bike-7", GeoPoint.ofLatLon(48.8606, 2.3376));
			context.getBean(IdGeneratorRegistry.class).create("orders", IdGeneratorSpec.ofBlockSize(10)).next();
			context.getBean(LeaderboardRegistry.class).create("scores", LeaderboardSpec.of(ZoneOffset.UTC)).add("a", 1);
			context.getBean(RecentItemsRegistry.class).create("viewed", RecentItemsSpec.of(5)).view("alice", "p1");
			KeyTools keyTools = context.getBean(KeyTools.class);
			keyTools.scan(KeyScanOptions.matching("rk:*")).forEachRemaining((key) -> {
			});
			keyTools.deleteByPattern(KeyScanOptions.matching("absent:*"), DeleteOptions.defaults().asDryRun());
			RedisSemaphore permits = context.getBean(SemaphoreRegistry.class).getSemaphore("exports", 1);
			try (Lease lease = permits.tryAcquire(1, Duration.ofSeconds(5)).orElseThrow()) {
				assertThat(permits.tryAcquire(1, Duration.ZERO)).isEmpty();
			}
			RedisCountDownLatch latch = context.getBean(LatchRegistry.class).getCountDownLatch("ready");
			latch.trySetCount(1);
			assertThat(latch.await(Duration.ZERO)).isFalse();
			latch.countDown();
			assertThat(latch.await(Duration.ofSeconds(5))).isTrue();
			TestObservationRegistryAssert.assertThat(observed)
				.hasNumberOfObservationsWithNameEqualTo("rediskit.counter.operation", 1)
				.hasNumberOfObservationsWithNameEqualTo("rediskit.bitmap.operation", 1)
				.hasNumberOfObservationsWithNameEqualTo("rediskit.bloom.operation", 1)
				.hasNumberOfObservationsWithNameEqualTo("rediskit.geo.operation", 1)
				.hasNumberOfObservationsWithNameEqualTo("rediskit.id.operation", 1)
				.hasNumberOfObservationsWithNameEqualTo("rediskit.rank.operation", 1)
				.hasNumberOfObservationsWithNameEqualTo("rediskit.recent.operation", 1)
				.hasNumberOfObservationsWithNameEqualTo("rediskit.keys.operation", 2)
				.forAllObservationsWithNameEqualTo("rediskit.keys.operation",
						(call) -> call.hasLowCardinalityKeyValue("name", "keys")
							.hasLowCardinalityKeyValue("outcome", "success"))
				.hasAnObservation((call) -> call.hasLowCardinalityKeyValue("operation", "scan"))
				.hasAnObservation((call) -> call.hasLowCardinalityKeyValue("operation", "delete-pattern"))
				.hasNumberOfObservationsWithNameEqualTo("rediskit.latch.await", 2)
				.forAllObservationsWithNameEqualTo("rediskit.latch.await",
						(await) -> await.hasLowCardinalityKeyValue("name", "ready").doesNotHaveError())
				.hasAnObservation((await) -> await.hasNameEqualTo("rediskit.latch.await")
					.hasLowCardinalityKeyValue("outcome", "timeout"))
				.hasAnObservation((await) -> await.hasNameEqualTo("rediskit.latch.await")
					.hasLowCardinalityKeyValue("outcome", "opened"))
				.hasNumberOfObservationsWithNameEqualTo("rediskit.lock.wait", 2)
				.forAllObservationsWithNameEqualTo("rediskit.lock.wait",
						(wait) -> wait.hasLowCardinalityKeyValue("kind", "semaphore")
							.hasLowCardinalityKeyValue("name", "exports"))
				.hasAnObservation((wait) -> wait.hasNameEqualTo("rediskit.lock.wait")
					.hasLowCardinalityKeyValue("outcome", "acquired"))
				.hasAnObservation((wait) -> wait.hasNameEqualTo("rediskit.lock.wait")
					.hasLowCardinalityKeyValue("outcome", "timeout")
					.assertThatError()
					.isInstanceOf(LockNotAcquiredException.class));
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
