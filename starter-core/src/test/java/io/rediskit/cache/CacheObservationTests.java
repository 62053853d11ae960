package io.rediskit.cache;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.rediskit.lock.LockTesting;
import io.rediskit.support.ObservationRecorder;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.TestConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cache's observations: lookups tagged with the tier that answered, and the single flight's load and the wait of
 * a caller on another instance for it.
 */
class CacheObservationTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final TestObservationRegistry observedA = TestObservationRegistry.create();

	final ObservationRecorder recorderA = new ObservationRecorder();

	final TestObservationRegistry observedB = TestObservationRegistry.create();

	LettuceConnectionFactory clientOfB;

	RedisKitCacheManager a;

	RedisKitCacheManager b;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.clientOfB = TestConnections.lettuce(redis.server());
		this.a = CacheTesting.manager(redis.connections(), CacheSpec.defaults(), List.of());
		this.b = CacheTesting.manager(this.clientOfB, CacheSpec.defaults(), List.of());
		this.observedA.observationConfig().observationHandler(this.recorderA);
		this.a.setObservations(Observations.of(this.observedA, null));
		this.b.setObservations(Observations.of(this.observedB, null));
	}

	@AfterEach
	void tearDown() {
		this.a.close();
		this.b.close();
		this.clientOfB.destroy();
	}

	@Test
	void lookupsAreObservedWithTheirOutcomeAndTier() throws Exception {
		RedisKitCache cache = this.a.getCache("users");
		assertThat(cache.get("alice")).isNull();
		cache.put("alice", "Alice");
		assertThat(cache.get("alice")).isNotNull();
		assertThat(cache.retrieve("alice").get(10, TimeUnit.SECONDS)).isNotNull();
		assertThat(cache.retrieve("bob").get(10, TimeUnit.SECONDS)).isNull();
		TestObservationRegistryAssert.assertThat(this.observedA)
			.hasNumberOfObservationsWithNameEqualTo("rediskit.cache.lookup", 4)
			.forAllObservationsWithNameEqualTo("rediskit.cache.lookup", (lookup) -> lookup
				.hasContextualNameEqualTo("cache lookup users")
				.hasLowCardinalityKeyValue("name", "users")
				.doesNotHaveError());
		assertThat(this.recorderA.stopped(RedisKitObservation.CACHE_LOOKUP))
			.extracting((context) -> ObservationRecorder.outcome(context) + " "
					+ context.getLowCardinalityKeyValue("tier").getValue())
			.containsExactly("miss none", "hit redis", "hit redis", "miss none");
	}

	@Test
	void theLoadAndAWaitForItOnAnotherInstanceAreObserved() throws Exception {
		CountDownLatch loading = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		CompletableFuture<Object> loader = CompletableFuture.supplyAsync(() -> this.b.getCache("users").get("alice",
				() -> {
					loading.countDown();
					assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
					return "Alice";
				}));
		assertThat(loading.await(30, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Object> waiter = CompletableFuture.supplyAsync(() -> this.a.getCache("users").get("alice",
				() -> "not called"));
		LockTesting.awaitCondition("instance A waits for B's load", Duration.ofSeconds(30),
				() -> !this.recorderA.open(RedisKitObservation.CACHE_LOAD).isEmpty());
		release.countDown();
		assertThat(loader.get(30, TimeUnit.SECONDS)).isEqualTo("Alice");
		assertThat(waiter.get(30, TimeUnit.SECONDS)).isEqualTo("Alice");
		TestObservationRegistryAssert.assertThat(this.observedB)
			.hasObservationWithNameEqualTo("rediskit.cache.load")
			.that()
			.hasLowCardinalityKeyValue("name", "users")
			.hasLowCardinalityKeyValue("outcome", "loaded");
		TestObservationRegistryAssert.assertThat(this.observedA)
			.hasObservationWithNameEqualTo("rediskit.cache.load")
			.that()
			.hasLowCardinalityKeyValue("name", "users")
			.hasLowCardinalityKeyValue("outcome", "waited");
		assertThat(this.recorderA.open(RedisKitObservation.CACHE_LOAD)).isEmpty();
	}

	@Test
	void theLoaderRunsInsideTheLoadsScopeAndTheScopeDoesNotLeak() throws Exception {
		RedisKitCache cache = this.a.getCache("users");
		java.util.List<String> current = new java.util.concurrent.CopyOnWriteArrayList<>();
		assertThat(cache.get("carol", () -> {
			current.add(this.observedA.getCurrentObservation().getContext().getName());
			return "Carol";
		})).isEqualTo("Carol");
		assertThat(cache.retrieve("dave", () -> {
			current.add(this.observedA.getCurrentObservation().getContext().getName());
			return CompletableFuture.completedFuture("Dave");
		}).get(10, TimeUnit.SECONDS)).isEqualTo("Dave");
		assertThat(current).containsExactly("rediskit.cache.load", "rediskit.cache.load");
		assertThat(this.observedA.getCurrentObservation()).as("no scope left open on the caller's thread").isNull();
	}

}
