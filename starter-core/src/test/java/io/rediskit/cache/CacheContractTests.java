package io.rediskit.cache;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.RedisServerProcess;
import io.rediskit.testsupport.Topology;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.Test;

import org.springframework.cache.Cache;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the cache promises on every topology (run once per {@link Topology}): entries in their own hash slots,
 * {@code clear()} across every master, single-flight between two instances, near-cache invalidation between two
 * instances.
 */
class CacheContractTests extends TopologyContract {

	static final CacheSpec NEAR = CacheSpec.defaults().withNearCache(NearCacheSpec.defaults());

	RedisKitCacheManager manager(LettuceConnectionFactory connections, CacheSpec spec, List<CacheListener> listeners) {
		return CacheTesting.manager(connections,
				(connections == this.redis.connections()) ? TopologyScripts.of(this.redis)
						: io.rediskit.support.ScriptExecutor.of(connections),
				CommandExecutor.of(connections), spec, Map.of(), listeners);
	}

	@Test
	void entriesLiveOnTheirOwnSlotsAndClearReachesEveryMaster() {
		String name = this.redis.unique("entries");
		try (RedisKitCacheManager caches = manager(this.redis.connections(), CacheSpec.defaults(), List.of())) {
			Cache cache = caches.getCache(name);
			for (int i = 0; i < 200; i++) {
				cache.put("k" + i, "v" + i);
			}
			assertThat(cache.get("k7").get()).isEqualTo("v7");
			assertThat(this.redis.exists("rk:cache:{" + name + ":k7}")).isTrue();
			Map<RedisServerProcess, Long> perMaster = this.redis.keysPerMaster("rk:cache:{" + name + ":*");
			assertThat(perMaster.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(200);
			if (this.topology == Topology.CLUSTER) {
				assertThat(perMaster.values()).as("entries on every master").allSatisfy((count) -> assertThat(count).isPositive());
			}
			cache.clear();
			assertThat(this.redis.keysPerMaster("rk:cache:{" + name + ":*").values()).allSatisfy((count) -> assertThat(count).isZero());
		}
	}

	@Test
	void twoInstancesLoadAMissingEntryOnce() throws Exception {
		String name = this.redis.unique("flight");
		LettuceConnectionFactory other = this.redis.newConnectionFactory();
		ExecutorService pool = Executors.newFixedThreadPool(16);
		try (RedisKitCacheManager a = manager(this.redis.connections(), CacheSpec.defaults(), List.of());
				RedisKitCacheManager b = manager(other, CacheSpec.defaults(), List.of())) {
			AtomicInteger loads = new AtomicInteger();
			CountDownLatch start = new CountDownLatch(1);
			List<Future<String>> results = new ArrayList<>();
			for (int i = 0; i < 16; i++) {
				Cache cache = ((i % 2) == 0 ? a : b).getCache(name);
				results.add(pool.submit(() -> {
					start.await(10, TimeUnit.SECONDS);
					return cache.get("hot", () -> {
						loads.incrementAndGet();
						Thread.sleep(500);
						return "value";
					});
				}));
			}
			start.countDown();
			for (Future<String> result : results) {
				assertThat(result.get(30, TimeUnit.SECONDS)).isEqualTo("value");
			}
			assertThat(loads).hasValue(1);
		}
		finally {
			pool.shutdownNow();
			other.destroy();
		}
	}

	@Test
	void plainSingleFlightStaleWhileRevalidateAndAsyncReadsRunOnEveryTopology() throws Exception {
		String name = this.redis.unique("refresh");
		CacheSpec spec = CacheSpec.defaults()
			.withTtl(Duration.ofMillis(200))
			.withTtlJitter(0)
			.withRefresh(1, Duration.ofSeconds(30))
			.withSingleFlight(SingleFlight.EVERY_MISS);
		try (RedisKitCacheManager caches = manager(this.redis.connections(), spec, List.of())) {
			Cache cache = caches.getCache(name);
			assertThat(cache.get("k")).as("a miss that takes the load lease").isNull();
			cache.put("k", "v1");
			assertThat(this.redis.exists("rk:cache:{" + name + ":k}:load")).isFalse();
			assertThat(cache.get("k").get()).isEqualTo("v1");
			assertThat(cache.retrieve("k").get(10, TimeUnit.SECONDS)).isInstanceOfSatisfying(Cache.ValueWrapper.class,
					(wrapper) -> assertThat(wrapper.get()).isEqualTo("v1"));
			long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
			while (cache.get("k") != null && System.nanoTime() < deadline) {
				Thread.onSpinWait();
			}
			assertThat(cache.get("k")).as("past its TTL, a plain read misses").isNull();
			cache.put("k", "v1");
			while (cache.get("k") != null && System.nanoTime() < deadline) {
				Thread.onSpinWait();
			}
			assertThat(cache.get("k", () -> "v2")).as("served stale while reloaded").isEqualTo("v1");
			while (!"v2".equals(cache.get("k", () -> "v2")) && System.nanoTime() < deadline) {
				Thread.onSpinWait();
			}
			assertThat(cache.get("k", () -> "v3")).isEqualTo("v2");
			assertThat(cache.retrieve("other", () -> CompletableFuture.completedFuture("loaded"))
				.get(10, TimeUnit.SECONDS)).isEqualTo("loaded");
		}
	}

	@Test
	void aWriteOnOneInstanceInvalidatesTheOthersNearCache() {
		String name = this.redis.unique("near");
		LettuceConnectionFactory other = this.redis.newConnectionFactory();
		RecordingCacheListener eventsOfB = new RecordingCacheListener();
		try (RedisKitCacheManager a = manager(this.redis.connections(), NEAR, List.of());
				RedisKitCacheManager b = manager(other, NEAR, List.of(eventsOfB))) {
			RedisKitCache onA = a.getCache(name);
			RedisKitCache onB = b.getCache(name);
			onA.put("k", "old");
			long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
			while (!onB.nearCacheActive() && System.nanoTime() < deadline) {
				Thread.onSpinWait();
			}
			assertThat(onB.nearCacheActive()).isTrue();
			// On Cluster too: a tracking connection per master.
			assertThat(onB.nearCacheInvalidation()).isEqualTo("tracking");
			// A read overtaken by an invalidation (of the write above) is not kept: read until the near cache answers.
			for (int i = 0; i < 50 && eventsOfB.count("hit " + name + " near") == 0; i++) {
				assertThat(onB.get("k").get()).isEqualTo("old");
			}
			assertThat(eventsOfB.count("hit " + name + " near")).isEqualTo(1);
			long before = eventsOfB.count("invalidation " + name);
			onA.put("k", "new");
			while (eventsOfB.count("invalidation " + name) == before && System.nanoTime() < deadline) {
				Thread.onSpinWait();
			}
			assertThat(onB.get("k").get()).isEqualTo("new");
		}
		finally {
			other.destroy();
		}
	}

}
