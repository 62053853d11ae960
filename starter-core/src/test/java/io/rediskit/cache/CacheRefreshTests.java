package io.rediskit.cache;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.TestConnections;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Early refresh and stale-while-revalidate, on two instances (each its own client and manager): a hot entry is
 * reloaded once per lifetime, before it expires, by one instance, and no caller ever misses it; an entry past its
 * TTL is served at once while one reload runs in the background.
 */
class CacheRefreshTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final RecordingCacheListener eventsOfA = new RecordingCacheListener();

	final RecordingCacheListener eventsOfB = new RecordingCacheListener();

	LettuceConnectionFactory clientOfB;

	RedisKitCacheManager a;

	RedisKitCacheManager b;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.clientOfB = TestConnections.lettuce(redis.server());
	}

	@AfterEach
	void tearDown() {
		this.a.close();
		this.b.close();
		this.clientOfB.destroy();
	}

	@Test
	void aHotEntryIsReloadedOnceBeforeEachExpiryAndNoCallerMissesIt() throws Exception {
		// XFetch with beta 10 and a load of about 25 ms refreshes roughly one to two and a half seconds before the
		// expiry, depending on the read rate: far from a 4 s TTL's start, and far enough from its end for a busy
		// machine to finish the reload in time.
		Duration ttl = Duration.ofSeconds(4);
		CacheSpec spec = CacheSpec.defaults().withTtl(ttl).withTtlJitter(0).withRefresh(10, Duration.ZERO);
		this.a = CacheTesting.manager(redis.connections(), spec, List.of(this.eventsOfA));
		this.b = CacheTesting.manager(this.clientOfB, spec, List.of(this.eventsOfB));
		ConcurrentLinkedQueue<Long> loadStarts = new ConcurrentLinkedQueue<>();
		AtomicInteger version = new AtomicInteger();
		java.util.concurrent.Callable<String> loader = () -> {
			loadStarts.add(System.nanoTime());
			Thread.sleep(25);
			return "v" + version.incrementAndGet();
		};
		RedisKitCache onA = this.a.getCache("hot");
		RedisKitCache onB = this.b.getCache("hot");
		assertThat(onA.get("price", loader)).isEqualTo("v1");
		long misses = this.eventsOfA.count("miss hot") + this.eventsOfB.count("miss hot");
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicInteger nulls = new AtomicInteger();
		List<CompletableFuture<Void>> readers = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			RedisKitCache cache = (i % 2 == 0) ? onA : onB;
			readers.add(CompletableFuture.runAsync(() -> {
				while (running.get()) {
					try {
						if (cache.get("price", loader) == null) {
							nulls.incrementAndGet();
						}
					}
					catch (RuntimeException ex) {
						nulls.incrementAndGet();
					}
				}
			}, (task) -> new Thread(task).start()));
		}
		// The length of the run (more than one lifetime of the entry), not a wait for something to happen.
		Thread.sleep(5500);
		running.set(false);
		CompletableFuture.allOf(readers.toArray(CompletableFuture[]::new)).get(1, TimeUnit.MINUTES);
		List<Long> starts = List.copyOf(loadStarts);
		assertThat(nulls.get()).isZero();
		// No caller found the entry missing: every load after the first was a reload in the background.
		assertThat(this.eventsOfA.count("miss hot") + this.eventsOfB.count("miss hot")).isEqualTo(misses);
		// About one reload per 1.5 to 3 s; a loaded machine stretches the measured load time, which XFetch answers
		// with earlier reloads, hence the margin.
		assertThat(starts).hasSizeBetween(2, 5);
		assertThat(this.eventsOfA.count("refresh hot early") + this.eventsOfB.count("refresh hot early"))
			.isEqualTo(starts.size() - 1);
		for (int i = 1; i < starts.size(); i++) {
			Duration gap = Duration.ofNanos(starts.get(i) - starts.get(i - 1));
			// Before the previous value expired, and never two instances at the same time: each reload starts after
			// the previous one (25 ms) ended. Not a larger bound: on a loaded machine the measured load time grows and
			// XFetch rightly reloads sooner (a gap of 493 ms was seen).
			assertThat(gap).isLessThan(ttl).isGreaterThanOrEqualTo(Duration.ofMillis(25));
		}
	}

	@Test
	void anEntryPastItsTtlIsServedWhileOneInstanceReloadsIt() throws Exception {
		CacheSpec spec = CacheSpec.defaults()
			.withTtl(Duration.ofMillis(200))
			.withTtlJitter(0)
			.withRefresh(0, Duration.ofSeconds(30));
		this.a = CacheTesting.manager(redis.connections(), spec, List.of(this.eventsOfA));
		this.b = CacheTesting.manager(this.clientOfB, spec, List.of(this.eventsOfB));
		RedisKitCache onA = this.a.getCache("swr");
		RedisKitCache onB = this.b.getCache("swr");
		assertThat(onA.get("rate", () -> "1.08")).isEqualTo("1.08");
		awaitPttlBelow("rk:cache:{swr:rate}", 30_000);
		assertThat(onA.get("rate")).as("a plain read cannot revalidate: past the TTL it is a miss").isNull();
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger reloads = new AtomicInteger();
		java.util.concurrent.Callable<String> slowLoader = () -> {
			reloads.incrementAndGet();
			assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
			return "1.09";
		};
		// Served at once, although the reload cannot end before the latch opens.
		assertThat(onA.get("rate", slowLoader)).isEqualTo("1.08");
		assertThat(onB.get("rate", slowLoader)).isEqualTo("1.08");
		assertThat(onA.get("rate", slowLoader)).isEqualTo("1.08");
		release.countDown();
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!"1.09".equals(onB.get("rate", slowLoader)) && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(onB.get("rate", slowLoader)).isEqualTo("1.09");
		assertThat(reloads.get()).isEqualTo(1);
		assertThat(this.eventsOfA.count("refresh swr stale") + this.eventsOfB.count("refresh swr stale")).isEqualTo(1);
	}

	@Test
	void reloadsRunOnTheGivenExecutorAndAManagerWithoutOneRefusesSpecsThatReload() {
		CacheSpec stale = CacheSpec.defaults().withTtl(Duration.ofMillis(200)).withTtlJitter(0)
			.withRefresh(0, Duration.ofSeconds(30));
		CacheSpec early = CacheSpec.defaults().withRefresh(1, Duration.ZERO);
		// No private threads in their place: a manager without an executor refuses what would need one.
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> manager(redis.connections(), stale, Map.of(), null))
			.withMessageContaining("staleWhileRevalidate of cache 'defaults' reloads entries in the background");
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> manager(redis.connections(), CacheSpec.defaults(), Map.of("hot", early), null))
			.withMessageContaining("earlyRefresh of cache 'hot'");
		AtomicInteger given = new AtomicInteger();
		Executor application = (task) -> {
			given.incrementAndGet();
			CacheTesting.REFRESHER.execute(task);
		};
		this.a = manager(redis.connections(), stale, Map.of(), application);
		this.b = manager(redis.connections(), CacheSpec.defaults(), Map.of(), null);
		RedisKitCache cache = this.a.getCache("given");
		assertThat(cache.get("rate", () -> "1.08")).isEqualTo("1.08");
		awaitPttlBelow("rk:cache:{given:rate}", 30_000);
		assertThat(cache.get("rate", () -> "1.09")).isEqualTo("1.08");
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (this.eventsOfA.count("refresh given stale") == 0 && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(this.eventsOfA.count("refresh given stale")).isEqualTo(1);
		assertThat(given.get()).isEqualTo(1);
	}

	private RedisKitCacheManager manager(LettuceConnectionFactory connections, CacheSpec defaults,
			Map<String, CacheSpec> configured, @Nullable Executor refresher) {
		return new RedisKitCacheManager(ScriptExecutor.of(connections), CommandExecutor.of(connections), connections,
				KeyNaming.defaults(), CacheTesting.json(), defaults, configured, List.of(this.eventsOfA),
				Duration.ofMillis(200), null, refresher, null);
	}

	private static void awaitPttlBelow(String key, long millis) {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while ((Long) redis.server().command("PTTL", key) >= millis && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat((Long) redis.server().command("PTTL", key)).isLessThan(millis);
	}

}
