package io.rediskit.cache;

import java.io.ByteArrayOutputStream;
import java.io.ObjectOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.cache.CacheTesting.Product;
import io.rediskit.cachegadget.Gadget;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.cache.Cache;
import org.springframework.cache.interceptor.SimpleKey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The cache against a real server: values, TTLs, nulls, hostile bytes, single-flight within one instance. */
class RedisKitCacheTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final RecordingCacheListener events = new RecordingCacheListener();

	RedisKitCacheManager manager;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.manager = CacheTesting.manager(redis.connections(), CacheSpec.defaults(), List.of(this.events));
	}

	@AfterEach
	void tearDown() {
		this.manager.close();
	}

	@Test
	void valuesRoundTripAsJsonWithTheirTypes() {
		Cache cache = this.manager.getCache("products");
		Product product = new Product(1, "Lamp", new BigDecimal("19.90"), List.of("home", "light"));
		cache.put(1L, product);
		cache.put("list", List.of(product, new Product(2, "Desk", BigDecimal.TEN, List.of())));
		cache.put("count", 42L);
		cache.put(new SimpleKey("a", 2), Map.of("k", 1.5));
		assertThat(cache.get(1L, Product.class)).isEqualTo(product);
		assertThat(cache.get("list").get()).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
			.containsExactly(product, new Product(2, "Desk", BigDecimal.TEN, List.of()));
		assertThat(cache.get("count").get()).isEqualTo(42L);
		assertThat(cache.get(new SimpleKey("a", 2)).get()).isEqualTo(Map.of("k", 1.5));
		String stored = (String) redis.server().command("GET", "rk:cache:{products:1}");
		assertThat(stored).contains("\"@class\":\"io.rediskit.cache.CacheTesting$Product\"").contains("\"Lamp\"");
	}

	@Test
	void entryTtlsAreSpreadByTheJitterBelowTheTtl() {
		Cache cache = this.manager.getCache("spread");
		RedisKitCacheManager jittered = CacheTesting.manager(redis.connections(),
				CacheSpec.defaults().withTtl(Duration.ofSeconds(100)).withTtlJitter(0.5), List.of());
		try {
			Cache spread = jittered.getCache("spread");
			List<Long> ttls = new ArrayList<>();
			for (int i = 0; i < 200; i++) {
				spread.put(i, "v");
				ttls.add((Long) redis.server().command("PTTL", "rk:cache:{spread:" + i + "}"));
			}
			assertThat(ttls).allSatisfy((ttl) -> assertThat(ttl).isBetween(49_000L, 100_000L));
			// Uniform over 50 s: 200 samples fill each fifth of the range (the chance of an empty one is 5 * 0.8^200).
			for (int fifth = 0; fifth < 5; fifth++) {
				long from = 50_000 + fifth * 10_000L;
				assertThat(ttls).anySatisfy((ttl) -> assertThat(ttl).isBetween(from - 1000, from + 10_000));
			}
			assertThat(cache.get(0)).isNotNull();
		}
		finally {
			jittered.close();
		}
	}

	@Test
	void aNullResultIsCachedForTheNullTtlAndAnsweredWithoutTheLoader() {
		RedisKitCacheManager nulls = CacheTesting.manager(redis.connections(),
				CacheSpec.defaults().withNullValues(true, Duration.ofSeconds(5)).withTtlJitter(0), List.of());
		try {
			Cache cache = nulls.getCache("users");
			AtomicInteger calls = new AtomicInteger();
			assertThat(cache.<String>get("ghost", () -> {
				calls.incrementAndGet();
				return null;
			})).isNull();
			assertThat(cache.<Integer>get("ghost", () -> calls.incrementAndGet())).isNull();
			assertThat(calls).hasValue(1);
			assertThat(cache.get("ghost")).isNotNull().extracting(Cache.ValueWrapper::get).isNull();
			assertThat((Long) redis.server().command("PTTL", "rk:cache:{users:ghost}")).isBetween(1L, 5000L);
		}
		finally {
			nulls.close();
		}
	}

	@Test
	void withoutNullCachingANullResultIsNotStored() {
		RedisKitCacheManager noNulls = CacheTesting.manager(redis.connections(),
				CacheSpec.defaults().withNullValues(false, Duration.ofSeconds(5)), List.of());
		try {
			Cache cache = noNulls.getCache("users");
			AtomicInteger calls = new AtomicInteger();
			assertThat(cache.<String>get("ghost", () -> {
				calls.incrementAndGet();
				return null;
			})).isNull();
			assertThat(cache.<String>get("ghost", () -> {
				calls.incrementAndGet();
				return null;
			})).isNull();
			assertThat(calls).hasValue(2);
			assertThat(redis.server().command("EXISTS", "rk:cache:{users:ghost}")).isEqualTo(0L);
		}
		finally {
			noNulls.close();
		}
	}

	@Test
	void hostilePayloadsAreMissesCountedAndInstantiateNothing() throws Exception {
		Cache cache = this.manager.getCache("hostile");
		int before = Gadget.created.get();
		redis.server().command("SET", "rk:cache:{hostile:gadget}",
				"{\"@class\":\"io.rediskit.cachegadget.Gadget\",\"command\":\"calc\"}");
		redis.server().command("SET", "rk:cache:{hostile:nested}",
				"[\"java.util.ArrayList\",[{\"@class\":\"io.rediskit.cachegadget.Gadget\",\"command\":\"calc\"}]]");
		redis.server().command("SET", "rk:cache:{hostile:jdk}", "placeholder");
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
			out.writeObject(new HashMap<>(Map.of("a", 1)));
		}
		redis.connections().getConnection().stringCommands()
			.set("rk:cache:{hostile:jdk}".getBytes(StandardCharsets.UTF_8), bytes.toByteArray());
		assertThat(cache.get("gadget")).isNull();
		assertThat(cache.get("nested")).isNull();
		assertThat(cache.get("jdk")).isNull();
		assertThat(Gadget.created.get()).isEqualTo(before);
		assertThat(this.events.count("undecodable hostile")).isEqualTo(3);
		assertThat(this.events.count("miss hostile")).isEqualTo(3);
		// Through the loader, sync and async, a miss too; the load replaces the unreadable bytes.
		assertThat(cache.get("gadget", () -> "fine")).isEqualTo("fine");
		assertThat(((RedisKitCache) cache).retrieve("nested", () -> CompletableFuture.completedFuture("fine too"))
			.get(1, TimeUnit.MINUTES)).isEqualTo("fine too");
		assertThat(this.events.count("undecodable hostile")).isEqualTo(5);
		assertThat(this.events.count("miss hostile")).isEqualTo(5);
		assertThat(this.events.count("load hostile true")).isEqualTo(2);
		assertThat(cache.get("gadget").get()).isEqualTo("fine");
	}

	@Test
	void concurrentCallersOfOneInstanceLoadOnce() throws Exception {
		Cache cache = this.manager.getCache("hot");
		AtomicInteger calls = new AtomicInteger();
		CountDownLatch release = new CountDownLatch(1);
		ExecutorService pool = Executors.newFixedThreadPool(32);
		try {
			List<Future<String>> results = new ArrayList<>();
			for (int i = 0; i < 32; i++) {
				results.add(pool.submit(() -> cache.get("k", () -> {
					calls.incrementAndGet();
					release.await(10, TimeUnit.SECONDS);
					return "loaded";
				})));
			}
			// Let the callers pile up behind the first (bounded: the loader waits 10 s at most).
			while (this.events.count("miss hot") == 0) {
				Thread.onSpinWait();
			}
			release.countDown();
			for (Future<String> result : results) {
				assertThat(result.get(20, TimeUnit.SECONDS)).isEqualTo("loaded");
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(calls).hasValue(1);
		assertThat(redis.server().command("EXISTS", "rk:cache:{hot:k}:load")).isEqualTo(0L);
	}

	@Test
	void aLoaderFailureReachesTheCallerAndTheNextMissLoadsAgain() {
		Cache cache = this.manager.getCache("flaky");
		assertThatExceptionOfType(Cache.ValueRetrievalException.class)
			.isThrownBy(() -> cache.get("k", () -> {
				throw new IllegalStateException("database down");
			}))
			.withCauseInstanceOf(IllegalStateException.class);
		assertThat(redis.server().command("EXISTS", "rk:cache:{flaky:k}", "rk:cache:{flaky:k}:load")).isEqualTo(0L);
		assertThat(cache.get("k", () -> "second")).isEqualTo("second");
	}

	@Test
	void evictAndClearDeleteEntriesOfTheirCacheOnly() {
		Cache a = this.manager.getCache("a");
		Cache ab = this.manager.getCache("ab");
		for (int i = 0; i < 1200; i++) {
			a.put(i, i);
		}
		ab.put(1, 1);
		assertThat(a.evictIfPresent(5)).isTrue();
		assertThat(a.evictIfPresent(5)).isFalse();
		a.clear();
		assertThat(a.get(1)).isNull();
		assertThat(ab.get(1).get()).isEqualTo(1);
		assertThat(redis.server().dbSize()).isEqualTo(1);
	}

	@Test
	void putIfAbsentKeepsTheExistingValue() {
		Cache cache = this.manager.getCache("once");
		assertThat(cache.putIfAbsent("k", "first")).isNull();
		assertThat(cache.putIfAbsent("k", "second").get()).isEqualTo("first");
		assertThat(cache.get("k").get()).isEqualTo("first");
	}

	@Test
	void keysWithoutAStringFormAndBadNamesAreRefused() {
		Cache cache = this.manager.getCache("keys");
		assertThatIllegalArgumentException().isThrownBy(() -> cache.get(new Object()))
			.withMessageContaining("does not override toString()");
		assertThatIllegalArgumentException().isThrownBy(() -> this.manager.getCache("bad.name"));
	}

}
