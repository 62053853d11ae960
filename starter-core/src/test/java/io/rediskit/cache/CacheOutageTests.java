package io.rediskit.cache;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.RedisAvailability;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.ScriptExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.cache.Cache;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis paused ({@code SIGSTOP}) and killed, behind the availability gate as the starter wires it: reads are
 * misses, loads run the loader uncached, writes and evictions are skipped, never an exception; the caches work
 * again once Redis answers.
 */
class CacheOutageTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.withCommandTimeout(Duration.ofMillis(500));

	final RecordingCacheListener events = new RecordingCacheListener();

	RedisAvailability availability;

	RedisKitCacheManager manager;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.availability = RedisAvailability.of(redis.connections(), Duration.ofMillis(200), null, List.of());
		this.manager = CacheTesting.manager(redis.connections(),
				this.availability.guard(ScriptExecutor.of(redis.connections())),
				this.availability.guard(CommandExecutor.of(redis.connections())), CacheSpec.defaults(), Map.of(),
				List.of(this.events));
	}

	@AfterEach
	void tearDown() {
		this.manager.close();
		this.availability.close();
	}

	@Test
	void aPausedServerMakesReadsMissesAndLoadsUncachedWithoutExceptions() {
		Cache cache = this.manager.getCache("paused");
		cache.put("k", "before");
		AtomicInteger loads = new AtomicInteger();
		redis.server().pause();
		try {
			long start = System.nanoTime();
			assertThat(cache.get("k")).isNull();
			assertThat(cache.get("other", () -> "loaded-" + loads.incrementAndGet())).isEqualTo("loaded-1");
			assertThat(cache.get("other", () -> "loaded-" + loads.incrementAndGet())).isEqualTo("loaded-2");
			cache.put("k", "during");
			cache.evict("k");
			// The first call waits for its command timeout; the gate refuses the others at once.
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
		}
		finally {
			redis.server().resume();
		}
		assertThat(this.events.events).contains("outage paused", "miss paused", "load paused true");
		awaitAvailable();
		// The put sent before the gate closed may have been applied when the server resumed: either value is fine.
		assertThat(cache.get("k", () -> "after")).isIn("before", "during", "after");
		cache.put("k", "again");
		assertThat(cache.get("k").get()).isEqualTo("again");
	}

	@Test
	void aKilledServerMakesLoadsRunTheLoaderAndTheCacheRecoversOnRestart() {
		Cache cache = this.manager.getCache("killed");
		cache.put("k", "before");
		redis.server().kill();
		try {
			assertThat(cache.get("k")).isNull();
			assertThat(cache.get("k", () -> "loaded")).isEqualTo("loaded");
			assertThat(cache.evictIfPresent("k")).isFalse();
		}
		finally {
			redis.server().restart();
		}
		awaitAvailable();
		cache.put("k", "after");
		assertThat(cache.get("k").get()).isEqualTo("after");
	}

	@Test
	void underServeStaleAPausedServerIsAnsweredFromTheNearCachesLastCopy() {
		RedisKitCache cache = staleManager().getCache("stale-paused");
		awaitNearCacheActive(cache, true);
		cache.put("k", "before");
		readUntilNearHit(cache, "k");
		AtomicInteger loads = new AtomicInteger();
		redis.server().pause();
		try {
			// The heartbeat's probes stop coming back: the near cache is no longer trusted, so reads go to Redis.
			awaitNearCacheActive(cache, false);
			assertThat(cache.get("k").get()).isEqualTo("before");
			assertThat(cache.get("k", () -> "loaded-" + loads.incrementAndGet())).isEqualTo("before");
			assertThat(cache.get("unknown", () -> "loaded-" + loads.incrementAndGet())).isEqualTo("loaded-1");
			assertThat(this.events.events).contains("hit stale-paused stale", "outage stale-paused");
		}
		finally {
			redis.server().resume();
		}
		awaitAvailable();
		cache.put("k", "after");
		assertThat(cache.get("k").get()).isEqualTo("after");
	}

	@Test
	void underServeStaleAKilledServerIsAnsweredFromTheNearCachesLastCopy() {
		RedisKitCache cache = staleManager().getCache("stale-killed");
		awaitNearCacheActive(cache, true);
		cache.put("k", "before");
		readUntilNearHit(cache, "k");
		redis.server().kill();
		try {
			awaitNearCacheActive(cache, false);
			assertThat(cache.get("k").get()).isEqualTo("before");
			assertThat(cache.get("k", () -> "loaded")).isEqualTo("before");
			assertThat(cache.get("unknown")).isNull();
			assertThat(cache.evictIfPresent("k")).isFalse();
		}
		finally {
			redis.server().restart();
		}
		awaitAvailable();
		// The copy is never answered while Redis is up: the restarted (empty) server says there is no entry.
		assertThat(cache.get("k")).isNull();
	}

	private RedisKitCacheManager staleManager() {
		this.manager.close();
		this.manager = CacheTesting.manager(redis.connections(),
				this.availability.guard(ScriptExecutor.of(redis.connections())),
				this.availability.guard(CommandExecutor.of(redis.connections())),
				CacheSpec.defaults().withNearCache(NearCacheSpec.defaults()).withOutagePolicy(OutagePolicy.SERVE_STALE),
				Map.of(), List.of(this.events));
		return this.manager;
	}

	private void readUntilNearHit(RedisKitCache cache, String key) {
		// The put's own invalidation comes back through the subscription and drops the copy whenever it arrives:
		// wait for it first, so that the copy read next stays.
		String invalidation = "invalidation " + cache.getName();
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!this.events.events.contains(invalidation) && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(this.events.events).contains(invalidation);
		String hit = "hit " + cache.getName() + " near";
		for (int i = 0; i < 50 && !this.events.events.contains(hit); i++) {
			assertThat(cache.get(key).get()).isEqualTo("before");
		}
		assertThat(this.events.events).contains(hit);
	}

	private static void awaitNearCacheActive(RedisKitCache cache, boolean active) {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (cache.nearCacheActive() != active && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(cache.nearCacheActive()).isEqualTo(active);
	}

	private void awaitAvailable() {
		long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
		while (!this.availability.isAvailable() && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(this.availability.isAvailable()).isTrue();
	}

}
