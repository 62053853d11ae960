package io.rediskit.cache;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

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
 * {@code retrieve}, what {@code @Cacheable} calls for methods returning a {@code CompletableFuture} or a reactive
 * type: on two instances, concurrent misses of one key call the loader once and all get its value, or all see its
 * failure, and the next miss loads again; plain reads tell a miss, a value and a cached null apart.
 */
class CacheAsyncTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final Executor LATER = CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS);

	LettuceConnectionFactory clientOfB;

	RedisKitCacheManager a;

	RedisKitCacheManager b;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.clientOfB = TestConnections.lettuce(redis.server());
		this.a = CacheTesting.manager(redis.connections(), CacheSpec.defaults(), List.of());
		this.b = CacheTesting.manager(this.clientOfB, CacheSpec.defaults(), List.of());
	}

	@AfterEach
	void tearDown() {
		this.a.close();
		this.b.close();
		this.clientOfB.destroy();
	}

	@Test
	void concurrentMissesOnTwoInstancesCallTheLoaderOnceAndAllGetItsValue() throws Exception {
		AtomicInteger calls = new AtomicInteger();
		Supplier<CompletableFuture<String>> loader = () -> {
			calls.incrementAndGet();
			return CompletableFuture.supplyAsync(() -> "value", LATER);
		};
		List<CompletableFuture<String>> callers = storm("hot", loader);
		for (CompletableFuture<String> caller : callers) {
			assertThat(caller.get(30, TimeUnit.SECONDS)).isEqualTo("value");
		}
		assertThat(calls.get()).isEqualTo(1);
		assertThat(this.b.getCache("async").get("hot").get()).isEqualTo("value");
	}

	@Test
	void aLoaderFailureReachesEveryCallerAndTheNextMissLoadsAgain() throws Exception {
		AtomicInteger calls = new AtomicInteger();
		Supplier<CompletableFuture<String>> failing = () -> {
			calls.incrementAndGet();
			return CompletableFuture.supplyAsync(() -> {
				throw new IllegalStateException("database unavailable");
			}, LATER);
		};
		List<CompletableFuture<String>> callers = storm("broken", failing);
		for (CompletableFuture<String> caller : callers) {
			assertThat(caller).failsWithin(Duration.ofSeconds(30))
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.satisfies((cause) -> assertThat(cause).hasMessageContaining("database unavailable")
					.isInstanceOfAny(IllegalStateException.class, CacheLoadFailedException.class));
		}
		assertThat(calls.get()).isEqualTo(1);
		assertThat(redis.server().command("EXISTS", "rk:cache:{async:broken}", "rk:cache:{async:broken}:load"))
			.isEqualTo(0L);
		assertThat(this.a.getCache("async").retrieve("broken", () -> CompletableFuture.completedFuture("second"))
			.get(30, TimeUnit.SECONDS)).isEqualTo("second");
	}

	@Test
	void plainReadsTellAMissAValueAndACachedNullApart() throws Exception {
		Cache cache = this.a.getCache("async");
		assertThat(cache.retrieve("k").get(30, TimeUnit.SECONDS)).isNull();
		cache.put("k", "v");
		assertThat(cache.retrieve("k").get(30, TimeUnit.SECONDS)).isInstanceOfSatisfying(Cache.ValueWrapper.class,
				(wrapper) -> assertThat(wrapper.get()).isEqualTo("v"));
		cache.put("nothing", null);
		assertThat(cache.retrieve("nothing").get(30, TimeUnit.SECONDS))
			.isInstanceOfSatisfying(Cache.ValueWrapper.class, (wrapper) -> assertThat(wrapper.get()).isNull());
		assertThat(cache.retrieve("nothing", () -> CompletableFuture.completedFuture("not called"))
			.get(30, TimeUnit.SECONDS)).isNull();
	}

	private List<CompletableFuture<String>> storm(String key, Supplier<CompletableFuture<String>> loader) {
		Cache onA = this.a.getCache("async");
		Cache onB = this.b.getCache("async");
		// Subscribed before the storm, so that the waiters of B hear A's outcome rather than poll for it.
		onA.get("warm-up", () -> "warm");
		onB.get("warm-up", () -> "warm");
		List<CompletableFuture<String>> callers = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			callers.add(((i % 2 == 0) ? onA : onB).retrieve(key, loader));
		}
		return callers;
	}

}
