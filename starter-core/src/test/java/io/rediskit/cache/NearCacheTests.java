package io.rediskit.cache;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.Background;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.TestConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.cache.Cache;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.Trigger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances (each its own client and manager) with near caches invalidated by pub/sub: a write on A is never served stale by B
 * once its invalidation arrived, and arrives within a bound on loopback; a killed subscription flushes B's near
 * cache and bypasses it until the subscription is back, and one that dies silently is noticed at the third
 * heartbeat; an instance keeps its own load; the near cache is bounded.
 */
class NearCacheTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	// Pub/sub: the subscription's probes, its kill and an instance's own load are what this suite is about; tracking
	// has NearCacheTrackingTests.
	static final CacheSpec NEAR = CacheSpec.defaults()
		.withNearCache(new NearCacheSpec(10, Duration.ofMinutes(1), NearCacheInvalidation.PUBSUB));

	final RecordingCacheListener eventsOfB = new RecordingCacheListener();

	LettuceConnectionFactory clientOfB;

	RedisKitCacheManager a;

	RedisKitCacheManager b;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.clientOfB = TestConnections.lettuce(redis.server());
		this.a = CacheTesting.manager(redis.connections(), NEAR, List.of());
		this.b = CacheTesting.manager(this.clientOfB, NEAR, List.of(this.eventsOfB));
	}

	@AfterEach
	void tearDown() {
		this.a.close();
		this.b.close();
		this.clientOfB.destroy();
	}

	@Test
	void aWriteOnAIsNeverServedStaleByBOnceItsInvalidationArrived() {
		RedisKitCache onA = this.a.getCache("prices");
		RedisKitCache onB = this.b.getCache("prices");
		onA.put("lamp", "19.90");
		awaitNearCacheActive(onB);
		readUntilNearHit(onB, "lamp", "19.90");
		long invalidations = this.eventsOfB.count("invalidation prices");
		long written = System.nanoTime();
		onA.put("lamp", "24.90");
		long deadline = written + Duration.ofSeconds(5).toNanos();
		while (this.eventsOfB.count("invalidation prices") == invalidations && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		Duration arrival = Duration.ofNanos(System.nanoTime() - written);
		assertThat(this.eventsOfB.count("invalidation prices")).isEqualTo(invalidations + 1);
		// Measured on loopback: the invalidation is published by the write's own script.
		assertThat(arrival).isLessThan(Duration.ofMillis(500));
		int after = this.eventsOfB.events.size();
		for (int i = 0; i < 100; i++) {
			assertThat(onB.get("lamp").get()).isEqualTo("24.90");
		}
		assertThat(eventsOfBSince(after)).contains("hit prices near");
	}

	@Test
	void evictionsAndLoadsOnAInvalidateB() {
		RedisKitCache onA = this.a.getCache("stock");
		RedisKitCache onB = this.b.getCache("stock");
		awaitNearCacheActive(onB);
		assertThat(onB.get("desk", () -> "3")).isEqualTo("3");
		assertThat(onB.get("desk").get()).isEqualTo("3");
		int before = this.eventsOfB.events.size();
		onA.evict("desk");
		awaitEvent("invalidation stock", before);
		assertThat(onB.get("desk")).isNull();
		assertThat(onA.get("desk", () -> "2")).isEqualTo("2");
		assertThat(onB.get("desk").get()).isEqualTo("2");
	}

	@Test
	void aManagerEvictsFromAndClearsACacheOnlyBUsesWithoutMakingItAndInvalidatesB() {
		RedisKitCache onB = this.b.getCache("orders");
		awaitNearCacheActive(onB);
		// Written around the caches: no invalidation of B's own that could arrive late.
		redis.server().command("SET", "rk:cache:{orders:o-1}", "\"paid\"");
		redis.server().command("SET", "rk:cache:{orders:o-2}", "\"open\"");
		readUntilNearHit(onB, "o-1", "paid");
		readUntilNearHit(onB, "o-2", "open");
		assertThat(onB.nearCacheSize()).isEqualTo(2);
		int before = this.eventsOfB.events.size();
		assertThat(this.a.evictIfPresent("orders", "o-1")).isTrue();
		awaitEvent("invalidation orders", before);
		assertThat(onB.get("o-1")).isNull();
		before = this.eventsOfB.events.size();
		this.a.clear("orders");
		// Pub/sub: the clear's message is B's only news of it.
		awaitEvent("invalidation orders", before);
		assertThat(onB.nearCacheSize()).isZero();
		assertThat(onB.get("o-2")).isNull();
		assertThat(redis.server().command("EXISTS", "rk:cache:{orders:o-2}")).isEqualTo(0L);
		assertThat(this.a.evictIfPresent("orders", "o-2")).isFalse();
		assertThat(this.a.getCacheNames()).doesNotContain("orders");
	}

	@Test
	void aKilledSubscriptionFlushesAndBypassesTheNearCacheUntilItIsBack() {
		RedisKitCache onB = this.b.getCache("rates");
		awaitNearCacheActive(onB);
		int before = this.eventsOfB.events.size();
		this.a.getCache("rates").put("eur", "1.08");
		// The put's own invalidation first: arriving after the read below, it would empty the near cache again.
		awaitEvent("invalidation rates", before);
		readUntilNearHit(onB, "eur", "1.08");
		assertThat(onB.nearCacheSize()).isEqualTo(1);
		redis.server().command("CLIENT", "KILL", "TYPE", "pubsub");
		// The flush, once B noticed the disconnect: reading before that would find the old copy, still trusted.
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (onB.nearCacheSize() != 0 && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(onB.nearCacheSize()).isZero();
		// A write whose invalidation cannot reach B: written around the caches, as if published during the gap.
		redis.server().command("SET", "rk:cache:{rates:eur}", "\"1.09\"");
		awaitNearCacheActive(onB);
		assertThat(onB.get("eur").get()).isEqualTo("1.09");
		assertThat(this.eventsOfB.events).contains("hit rates redis");
	}

	@Test
	void aCacheFirstUsedWhileRedisIsDownSubscribesOnceRedisIsBack() {
		RedisKitCache onB;
		redis.server().kill();
		try {
			onB = this.b.getCache("late");
			assertThat(onB.nearCacheActive()).isFalse();
		}
		finally {
			redis.server().restart();
		}
		awaitNearCacheActive(onB);
		RedisKitCache onA = this.a.getCache("late");
		onA.put("lamp", "19.90");
		readUntilNearHit(onB, "lamp", "19.90");
		int before = this.eventsOfB.events.size();
		onA.put("lamp", "24.90");
		awaitEvent("invalidation late", before);
		assertThat(onB.get("lamp").get()).isEqualTo("24.90");
	}

	/**
	 * Redis paused ({@code SIGSTOP}): the subscription's connection stays up and carries nothing, so only the
	 * probes tell. Counted in heartbeats, run by hand: the third one after the last probe that came back notices,
	 * and neither before.
	 */
	@Test
	void aSubscriptionThatDiesSilentlyIsNoticedAtTheThirdHeartbeat() {
		ManualScheduler heartbeats = new ManualScheduler();
		RecordingCacheListener eventsOfC = new RecordingCacheListener();
		// An hour: the time since the last probe, which a read also checks, never decides here.
		RedisKitCacheManager c = new RedisKitCacheManager(ScriptExecutor.of(this.clientOfB),
				CommandExecutor.of(this.clientOfB), this.clientOfB, KeyNaming.defaults(), CacheTesting.json(), NEAR,
				Map.of(), List.of(eventsOfC), Duration.ofHours(1), Background.of(heartbeats, null), CacheTesting.REFRESHER,
				null);
		try {
			RedisKitCache onC = c.getCache("silent");
			// The probe sent on subscribing came back: the last one before the pause.
			awaitNearCacheActive(onC);
			onC.put("lamp", "19.90");
			// The put's own invalidation first: arriving after the read below, it would empty the near cache again.
			long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
			while (eventsOfC.count("invalidation silent") == 0 && System.nanoTime() < deadline) {
				Thread.onSpinWait();
			}
			assertThat(eventsOfC.count("invalidation silent")).isEqualTo(1);
			assertThat(onC.get("lamp").get()).isEqualTo("19.90");
			assertThat(onC.nearCacheSize()).isEqualTo(1);
			redis.server().pause();
			try {
				heartbeats.tick();
				assertThat(onC.nearCacheSize()).as("after the first heartbeat").isEqualTo(1);
				heartbeats.tick();
				assertThat(onC.nearCacheSize()).as("after the second heartbeat").isEqualTo(1);
				heartbeats.tick();
				assertThat(onC.nearCacheSize()).as("after the third heartbeat").isZero();
				assertThat(onC.nearCacheActive()).isFalse();
			}
			finally {
				redis.server().resume();
			}
			// Back once a probe sent after the loss comes back.
			heartbeats.tick();
			awaitNearCacheActive(onC);
		}
		finally {
			c.close();
		}
	}

	@Test
	void anInstancesOwnLoadStaysInItsNearCache() {
		RedisKitCache onB = this.b.getCache("loads");
		// Subscribed before the write below.
		this.b.getCache("later");
		awaitNearCacheActive(onB);
		int before = this.eventsOfB.events.size();
		assertThat(onB.get("lamp", () -> "19.90")).isEqualTo("19.90");
		// Messages arrive in order: once this write's has, so has the load's own.
		this.a.getCache("later").put("desk", "99.00");
		awaitEvent("invalidation later", before);
		assertThat(onB.get("lamp", () -> "loaded again")).isEqualTo("19.90");
		assertThat(onB.get("lamp").get()).isEqualTo("19.90");
		assertThat(eventsOfBSince(before)).containsExactly("miss loads", "load loads true", "invalidation later",
				"hit loads near", "hit loads near");
	}

	@Test
	void theNearCacheIsBounded() {
		RedisKitCache onB = this.b.getCache("many");
		awaitNearCacheActive(onB);
		for (int i = 0; i < 100; i++) {
			onB.put(i, i);
			assertThat(onB.get(i).get()).isEqualTo(i);
		}
		assertThat(onB.nearCacheSize()).isBetween(1, 10);
	}

	/**
	 * Reads until the near cache answers: a read whose reply was overtaken by an invalidation (here, of the write
	 * that stored the value) is not kept, so the first read may not fill the near cache.
	 */
	private void readUntilNearHit(RedisKitCache cache, String key, Object expected) {
		String hit = "hit " + cache.getName() + " near";
		long hits = this.eventsOfB.count(hit);
		for (int i = 0; i < 50 && this.eventsOfB.count(hit) == hits; i++) {
			assertThat(cache.get(key).get()).isEqualTo(expected);
		}
		assertThat(this.eventsOfB.count(hit)).isEqualTo(hits + 1);
	}

	/** A snapshot: a sub-list of the live list fails when a listener adds an event while it is read. */
	private List<String> eventsOfBSince(int after) {
		List<String> events = List.copyOf(this.eventsOfB.events);
		return events.subList(after, events.size());
	}

	private void awaitEvent(String event, int after) {
		long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
		while (!eventsOfBSince(after).contains(event)
				&& System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(eventsOfBSince(after)).contains(event);
	}

	/**
	 * Runs the tasks scheduled at a fixed rate (the heartbeat, and the subscriptions' retry at the same interval)
	 * when told, once per {@link #tick()}.
	 */
	private static final class ManualScheduler implements TaskScheduler {

		private final List<ManualTask> tasks = new CopyOnWriteArrayList<>();

		void tick() {
			for (ManualTask task : this.tasks) {
				if (!task.isCancelled()) {
					task.runnable.run();
				}
			}
		}

		@Override
		public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration period) {
			ManualTask scheduled = new ManualTask(task);
			this.tasks.add(scheduled);
			return scheduled;
		}

		@Override
		public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Instant startTime, Duration period) {
			return scheduleAtFixedRate(task, period);
		}

		@Override
		public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Duration delay) {
			return scheduleAtFixedRate(task, delay);
		}

		@Override
		public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Instant startTime, Duration delay) {
			return scheduleAtFixedRate(task, delay);
		}

		@Override
		public ScheduledFuture<?> schedule(Runnable task, Trigger trigger) {
			throw new UnsupportedOperationException("The cache schedules at a fixed rate only");
		}

		/** The bound of a subscription's wait: never fires here, where every wait ends by its condition. */
		@Override
		public ScheduledFuture<?> schedule(Runnable task, Instant startTime) {
			return new ManualTask(task);
		}

	}

	private static final class ManualTask extends CompletableFuture<Object> implements ScheduledFuture<Object> {

		final Runnable runnable;

		ManualTask(Runnable runnable) {
			this.runnable = runnable;
		}

		@Override
		public long getDelay(TimeUnit unit) {
			return 0;
		}

		@Override
		public int compareTo(Delayed other) {
			return 0;
		}

	}

	private static void awaitNearCacheActive(RedisKitCache cache) {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!cache.nearCacheActive() && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(cache.nearCacheActive()).isTrue();
	}

}
