package io.rediskit.bloom;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.rediskit.lock.LockRegistry;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.TestConnections;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cache-penetration guard: unknown ids never reach the loader while the filter is complete, a lost or recreated
 * filter never hides a record and is seeded again once across instances, misses are remembered, loads are
 * single-flight.
 */
class BloomGuardTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final List<AutoCloseable> resources = new ArrayList<>();

	final List<BloomFilterRegistry> registries = new ArrayList<>();

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

	/** A guard as one application instance has it: its own connection, filter registry and lock registry. */
	BloomGuard instance(BloomGuardSpec spec) {
		return instance(spec, null);
	}

	/** An instance whose filter registry seeds {@code users} from a source, under its lock registry. */
	BloomGuard instance(BloomGuardSpec spec, @Nullable BloomFilterSeed seed) {
		return instance(spec, seed, BloomFilterSpec.of(10_000, 0.01));
	}

	/** An instance whose filter {@code users} has a sizing of its own. */
	BloomGuard instance(BloomGuardSpec spec, @Nullable BloomFilterSeed seed, BloomFilterSpec filter) {
		LettuceConnectionFactory connections = TestConnections.lettuce(redis.server());
		this.resources.add(connections::destroy);
		LockRegistry locks = new LockRegistry(connections);
		this.resources.add(locks::close);
		BloomFilterRegistry filters = new BloomFilterRegistry(connections, KeyNaming.defaults(), BloomFilterListener.NONE);
		filters.setLocks(locks);
		if (seed != null) {
			filters.setSeed(seed);
		}
		this.registries.add(filters);
		return new BloomGuard(filters.create("users", filter), CommandExecutor.of(connections),
				KeyNaming.defaults(), locks, spec);
	}

	@Test
	void idsTheFilterHasNeverSeenNeverReachTheLoader() {
		BloomGuard guard = instance(BloomGuardSpec.defaults());
		AtomicInteger loads = new AtomicInteger();
		assertThat(guard.seed(List.of("42"))).isTrue();
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
	void aFilterLostInRedisOrRecreatedByOneAddLetsTheLoaderRunUntilItIsSeededAgain() {
		BloomGuard guard = instance(BloomGuardSpec.defaults());
		assertThat(guard.seed(List.of("7", "8"))).isTrue();
		AtomicInteger loads = new AtomicInteger();
		Function<String, String> table = (id) -> {
			loads.incrementAndGet();
			return switch (id) {
				case "7" -> "kettle";
				case "8" -> "toaster";
				case "9" -> "mixer";
				default -> null;
			};
		};
		assertThat(guard.load("unknown", table)).isEmpty();
		assertThat(loads).as("an id the filter has never seen").hasValue(0);
		// A restart without persistence, a FLUSHDB, a failover that dropped the key: the filter is gone.
		redis.flushAll();
		assertThat(guard.load("7", table)).as("a record that exists").contains("kettle");
		assertThat(loads).hasValue(1);
		// A product created now: its add creates the filter again, holding this one id.
		guard.add("9");
		assertThat(guard.load("8", table)).as("a record the recreated filter has never seen").contains("toaster");
		assertThat(guard.load("9", table)).contains("mixer");
		assertThat(loads).hasValue(3);
		assertThat(guard.seed(List.of("7", "8", "9"))).isTrue();
		assertThat(guard.load("other", table)).isEmpty();
		assertThat(guard.load("8", table)).contains("toaster");
		assertThat(loads).as("seeded again, the filter guards again").hasValue(4);
	}

	@Test
	void addsWithoutASeedingNeverMakeTheFilterTrustedSoItsNeverSeenIsNotBelieved() {
		BloomGuard guard = instance(BloomGuardSpec.defaults());
		guard.addAll(List.of("7"));
		AtomicInteger loads = new AtomicInteger();
		assertThat(guard.load("unknown", (id) -> {
			loads.incrementAndGet();
			return null;
		})).isEmpty();
		assertThat(loads).as("the loader ran: nothing says the filter holds every id").hasValue(1);
	}

	@Test
	void aFilterWithASeedIsSeededAtFirstUseAndAgainAfterALossOnceAcrossInstancesKeepingAddsMadeMeanwhile()
			throws Exception {
		AtomicInteger reads = new AtomicInteger();
		AtomicReference<CountDownLatch> hold = new AtomicReference<>(new CountDownLatch(0));
		CountDownLatch reading = new CountDownLatch(2);
		BloomFilterSeed seed = BloomFilterSeed.of("users", () -> {
			reads.incrementAndGet();
			reading.countDown();
			try {
				assertThat(hold.get().await(30, TimeUnit.SECONDS)).isTrue();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			return List.of("7", "8");
		});
		BloomGuard first = instance(BloomGuardSpec.defaults(), seed);
		BloomGuard second = instance(BloomGuardSpec.defaults(), seed);
		BloomFilterRegistry firstFilters = this.registries.get(0);
		BloomFilterRegistry secondFilters = this.registries.get(1);
		AtomicInteger loads = new AtomicInteger();
		Function<String, String> table = (id) -> {
			loads.incrementAndGet();
			return ("7".equals(id) || "8".equals(id) || "new".equals(id)) ? "record " + id : null;
		};
		// First use: never seeded, the loader runs, and the check starts a seeding.
		assertThat(first.load("8", table)).contains("record 8");
		assertThat(firstFilters.seedAsync("users").toCompletableFuture().get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(reads).hasValue(1);
		assertThat(second.load("unknown", table)).isEmpty();
		assertThat(loads).hasValue(1);

		redis.flushAll();
		hold.set(new CountDownLatch(1));
		// Both instances find the filter lost: each load reaches the loader and asks for a seeding.
		assertThat(first.load("7", table)).contains("record 7");
		assertThat(second.load("7", table)).contains("record 7");
		assertThat(reading.await(30, TimeUnit.SECONDS)).as("one seeding reads the source").isTrue();
		// While the source is read, a record is created and added: it must survive the seeding.
		second.add("new");
		CompletableFuture<Boolean> seededByFirst = firstFilters.seedAsync("users").toCompletableFuture();
		CompletableFuture<Boolean> seededBySecond = secondFilters.seedAsync("users").toCompletableFuture();
		hold.get().countDown();
		assertThat(seededByFirst.get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(seededBySecond.get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(reads).as("seeded once after the loss, not once per instance").hasValue(2);
		int before = loads.get();
		assertThat(first.load("unknown", table)).isEmpty();
		assertThat(second.load("other", table)).isEmpty();
		assertThat(loads).as("unknown ids filtered again").hasValue(before);
		assertThat(first.load("new", table)).as("the id added during the seeding").contains("record new");
	}

	@Test
	void aGrowingFilterThatLostALayerOnItsOwnLetsTheLoaderRunAndIsSeededAgainFromItsSource() throws Exception {
		List<String> ids = BloomFilterTests.items("u-", 0, 300);
		AtomicInteger reads = new AtomicInteger();
		BloomGuard guard = instance(BloomGuardSpec.defaults(), BloomFilterSeed.of("users", () -> {
			reads.incrementAndGet();
			return ids;
		}), BloomFilterSpec.of(100, 0.01).withGrowth(BloomGrowth.DEFAULT));
		BloomFilterRegistry filters = this.registries.get(0);
		assertThat(filters.seedAsync("users").toCompletableFuture().get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(filters.get("users").info().layers()).as("300 ids: layers of 100 and 200").hasSize(2);
		// Evicted, expired or deleted by an operator: the first layer alone, the record and its mark stay.
		assertThat(redis.server().command("DEL", "rk:bloom:{users}:layer:0")).isEqualTo(1L);
		AtomicInteger loads = new AtomicInteger();
		Function<String, String> table = (id) -> {
			loads.incrementAndGet();
			return ids.contains(id) ? "user " + id : null;
		};
		for (String id : ids) {
			assertThat(guard.load(id, table)).as("%s, perhaps in the lost layer", id).contains("user " + id);
		}
		// The first check that found it not complete started a seeding, which starts the filter over.
		assertThat(filters.seedAsync("users").toCompletableFuture().get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(reads).as("seeded at first and once after the loss").hasValue(2);
		int before = loads.get();
		assertThat(guard.load("stranger", table)).isEmpty();
		assertThat(loads).as("an id the rebuilt filter never saw").hasValue(before);
		assertThat(guard.load("u-1", table)).contains("user u-1");
	}

	@Test
	void aSeedingDuringWhichTheFilterIsLostDoesNotMarkItComplete() {
		BloomGuard guard = instance(BloomGuardSpec.defaults());
		Iterable<String> losing = () -> List.of("7", "8").stream().peek((id) -> {
			if ("8".equals(id)) {
				redis.flushAll();
			}
		}).iterator();
		assertThat(guard.seed(losing)).isFalse();
		AtomicInteger loads = new AtomicInteger();
		assertThat(guard.load("7", (id) -> {
			loads.incrementAndGet();
			return "kettle";
		})).contains("kettle");
		assertThat(loads).hasValue(1);
	}

	@Test
	void aLoaderMissIsRememberedWithJitterUntilTheIdIsAdded() {
		BloomGuard guard = instance(new BloomGuardSpec(Duration.ofSeconds(100), 0.5, Duration.ofSeconds(5)));
		guard.seed(List.of("7"));
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
		first.seed(List.of("deleted"));
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
