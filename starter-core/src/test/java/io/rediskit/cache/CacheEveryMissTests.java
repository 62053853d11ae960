package io.rediskit.cache;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.support.RedisTestServer;
import io.rediskit.support.TestConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.cache.Cache;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SingleFlight#EVERY_MISS} on two instances, driven as Spring drives {@code @Cacheable} without
 * {@code sync}: {@code get(key)}, on a miss the method, then {@code put(key, result)}. Concurrent misses run the
 * method once; a method that threw (no put) holds the others back until its lease runs out, then one runs it.
 */
class CacheEveryMissTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final CacheSpec EVERY_MISS = CacheSpec.defaults()
		.withSingleFlight(SingleFlight.EVERY_MISS)
		.withLoadTimeout(Duration.ofMillis(800));

	LettuceConnectionFactory clientOfB;

	RedisKitCacheManager a;

	RedisKitCacheManager b;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.clientOfB = TestConnections.lettuce(redis.server());
		this.a = CacheTesting.manager(redis.connections(), EVERY_MISS, List.of());
		this.b = CacheTesting.manager(this.clientOfB, EVERY_MISS, List.of());
	}

	@AfterEach
	void tearDown() {
		this.a.close();
		this.b.close();
		this.clientOfB.destroy();
	}

	@Test
	void concurrentPlainMissesOnTwoInstancesRunTheMethodOnce() throws Exception {
		Cache onA = this.a.getCache("plain");
		Cache onB = this.b.getCache("plain");
		warmUp(onA, onB);
		AtomicInteger runs = new AtomicInteger();
		CountDownLatch go = new CountDownLatch(1);
		List<CompletableFuture<Object>> callers = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			Cache cache = (i % 2 == 0) ? onA : onB;
			callers.add(CompletableFuture.supplyAsync(() -> {
				await(go);
				return cacheable(cache, "hot", () -> {
					runs.incrementAndGet();
					pause(200);
					return "value";
				});
			}, (task) -> new Thread(task).start()));
		}
		go.countDown();
		for (CompletableFuture<Object> caller : callers) {
			assertThat(caller.get(30, TimeUnit.SECONDS)).isEqualTo("value");
		}
		assertThat(runs.get()).isEqualTo(1);
		assertThat(redis.server().command("EXISTS", "rk:cache:{plain:hot}:load")).isEqualTo(0L);
	}

	@Test
	void aMethodThatThrewHoldsTheOthersBackUntilItsLeaseRunsOutThenOneRunsIt() throws Exception {
		Cache onA = this.a.getCache("plain");
		Cache onB = this.b.getCache("plain");
		warmUp(onA, onB);
		// A caller on A misses and takes the lease; its method throws, so Spring never puts.
		assertThat(onA.get("broken")).isNull();
		long failed = System.nanoTime();
		AtomicInteger runs = new AtomicInteger();
		List<CompletableFuture<Object>> callers = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			callers.add(CompletableFuture.supplyAsync(() -> cacheable(onB, "broken", () -> {
				runs.incrementAndGet();
				return "value";
			}), (task) -> new Thread(task).start()));
		}
		for (CompletableFuture<Object> caller : callers) {
			assertThat(caller.get(30, TimeUnit.SECONDS)).isEqualTo("value");
		}
		assertThat(runs.get()).isEqualTo(1);
		// Nobody ran the method before the lease of the failed call ran out.
		assertThat(Duration.ofNanos(System.nanoTime() - failed)).isGreaterThan(Duration.ofMillis(500));
	}

	/** What Spring's cache interceptor does for {@code @Cacheable} without {@code sync}. */
	private static Object cacheable(Cache cache, String key, java.util.function.Supplier<Object> method) {
		Cache.ValueWrapper cached = cache.get(key);
		if (cached != null) {
			return cached.get();
		}
		Object result = method.get();
		cache.put(key, result);
		return result;
	}

	private static void warmUp(Cache onA, Cache onB) {
		// Subscribed before the storm, so that waiters hear the outcome rather than poll for it.
		onA.get("warm-up", () -> "warm");
		onB.get("warm-up", () -> "warm");
	}

	private static void await(CountDownLatch latch) {
		try {
			assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static void pause(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
