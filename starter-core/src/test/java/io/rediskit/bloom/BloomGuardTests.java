package io.rediskit.bloom;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.rediskit.lock.LockRegistry;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.TestConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/** The cache-penetration guard: unknown ids never reach the loader, misses are remembered, loads are single-flight. */
class BloomGuardTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final List<AutoCloseable> resources = new ArrayList<>();

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	@AfterEach
	void close() throws Exception {
		// Last made, first closed, as Spring destroys beans: the lock registry before its connection factory. In the
		// other order a release-channel subscription still being made fails on the destroyed factory, Spring Data's
		// listener container retries it inside its lock, and the registry's close waited on that lock for good.
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	/** A guard as one application instance has it: its own connection, filter handle and lock registry. */
	BloomGuard instance(BloomGuardSpec spec) {
		LettuceConnectionFactory connections = TestConnections.lettuce(redis.server());
		this.resources.add(connections::destroy);
		LockRegistry locks = new LockRegistry(connections);
		this.resources.add(locks::close);
		BloomFilterRegistry filters = new BloomFilterRegistry(connections, KeyNaming.defaults(), BloomFilterListener.NONE);
		return new BloomGuard(filters.create("users", BloomFilterSpec.of(10_000, 0.01)), CommandExecutor.of(connections),
				KeyNaming.defaults(), locks, spec);
	}

	@Test
	void idsTheFilterHasNeverSeenNeverReachTheLoader() {
		BloomGuard guard = instance(BloomGuardSpec.defaults());
		AtomicInteger loads = new AtomicInteger();
		guard.add("42");
		assertThat(guard.load("42", (id) -> {
			loads.incrementAndGet();
			return "user " + id;
		})).contains("user 42");
		for (int i = 0; i < 1000; i++) {
			assertThat(guard.load("missing-" + i, (id) -> {
				loads.incrementAndGet();
				return null;
			})).isEmpty();
		}
		// At 1% false positives, about 10 of 1000 unknown ids reach the loader; each is then remembered.
		assertThat(loads.get()).isBetween(1, 1 + 40);
	}

	@Test
	void aFilterLostInRedisLetsTheLoaderRunInsteadOfHidingEveryRecord() {
		BloomGuard guard = instance(BloomGuardSpec.defaults());
		guard.addAll(List.of("7", "8"));
		AtomicInteger loads = new AtomicInteger();
		Function<String, String> table = (id) -> {
			loads.incrementAndGet();
			return "7".equals(id) ? "kettle" : null;
		};
		assertThat(guard.load("unknown", table)).isEmpty();
		assertThat(loads).as("an id the filter has never seen").hasValue(0);
		// A restart without persistence, a FLUSHDB, a failover that dropped the key: the filter is gone.
		redis.flushAll();
		assertThat(guard.load("7", table)).as("a record that exists").contains("kettle");
		assertThat(guard.load("unknown", table)).isEmpty();
		assertThat(loads).as("both reached the loader while the filter is missing").hasValue(2);
		guard.addAll(List.of("7", "8"));
		assertThat(guard.load("other", table)).isEmpty();
		assertThat(loads).as("once its ids are added again, the filter guards again").hasValue(2);
	}

	@Test
	void aLoaderMissIsRememberedWithJitterUntilTheIdIsAdded() {
		BloomGuard guard = instance(new BloomGuardSpec(Duration.ofSeconds(100), 0.5, Duration.ofSeconds(5)));
		guard.add("7");
		AtomicInteger loads = new AtomicInteger();
		for (int i = 0; i < 5; i++) {
			assertThat(guard.load("7", (id) -> {
				loads.incrementAndGet();
				return null;
			})).isEmpty();
		}
		assertThat(loads).hasValue(1);
		long ttl = (Long) redis.server().command("PTTL", "rk:bloom-guard:{users:7}");
		assertThat(ttl).isBetween(90_000L, 150_000L);
		guard.add("7");
		assertThat(redis.server().command("EXISTS", "rk:bloom-guard:{users:7}")).isEqualTo(0L);
		assertThat(guard.load("7", (id) -> "seven")).isEqualTo(Optional.of("seven"));
	}

	@Test
	void concurrentMissesForOneIdCallTheLoaderOnceAcrossInstances() throws Exception {
		BloomGuard first = instance(BloomGuardSpec.defaults());
		BloomGuard second = instance(BloomGuardSpec.defaults());
		first.add("deleted");
		AtomicInteger loads = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService threads = Executors.newFixedThreadPool(16);
		try {
			List<Future<Optional<String>>> results = new ArrayList<>();
			for (int i = 0; i < 16; i++) {
				BloomGuard guard = (i % 2 == 0) ? first : second;
				results.add(threads.submit(() -> {
					start.await();
					return guard.load("deleted", (id) -> {
						loads.incrementAndGet();
						return null;
					});
				}));
			}
			start.countDown();
			for (Future<Optional<String>> result : results) {
				assertThat(result.get(30, TimeUnit.SECONDS)).isEmpty();
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(loads).hasValue(1);
	}

}
