package io.rediskit.cache;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import io.rediskit.testsupport.RedisSentinelGroup;
import io.rediskit.testsupport.RedisServerProcess;
import io.rediskit.testsupport.RedisTopology;
import io.rediskit.testsupport.Topology;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The near cache under server-assisted tracking, on a private standalone server and a private Sentinel group
 * (faults are injected): writes by a plain Lettuce connection (not redis-kit), an expiry, {@code FLUSHDB}, the
 * tracking connection killed, the server restarted or failed over. After each, once the server's invalidation
 * arrived (counted by the cache's listener) or the loss was noticed (the near cache emptied), no read returns the
 * old value; {@link StaleReadCheck} judges the reads. The resync window (from the fault until the near cache answers
 * again) is printed. Waits are for conditions, each bounded; there are no sleeps.
 */
@ParameterizedClass(name = "[{index}] {0}")
@EnumSource(value = Topology.class, names = { "STANDALONE", "SENTINEL" })
class NearCacheTrackingTests {

	private static final Map<Topology, RedisTopology> deployments = new EnumMap<>(Topology.class);

	private static final CacheSpec NEAR = CacheSpec.defaults()
		.withNearCache(new NearCacheSpec(1000, Duration.ofMinutes(1), NearCacheInvalidation.AUTO));

	@Parameter
	Topology topology;

	RedisTopology redis;

	LettuceConnectionFactory connections;

	RedisKitCacheManager manager;

	final Counts counts = new Counts();

	RedisClient plainClient;

	RedisCommands<String, String> plain;

	@BeforeEach
	void setUp() {
		this.redis = deployments.computeIfAbsent(this.topology, RedisTopology::start);
		// As an application's: the client options Spring Data chooses.
		this.connections = factory(null);
		this.manager = CacheTesting.manager(this.connections, NEAR, List.of(this.counts));
		this.plainClient = RedisClient.create(plainUri());
		StatefulRedisConnection<String, String> connection = this.plainClient.connect();
		this.plain = connection.sync();
	}

	@AfterEach
	void tearDown() {
		this.manager.close();
		this.connections.destroy();
		this.plainClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	@AfterAll
	static void stopDeployments() {
		deployments.values().forEach(RedisTopology::close);
		deployments.clear();
	}

	@Test
	void theFirstTrackingAfterStartingIsNoResync() {
		RedisKitCache cache = this.manager.getCache("fresh-start");
		awaitActive(cache);
		// Nothing was bypassed before: neither a resync time nor an "answer again" log line (was: the time since
		// the manager was made).
		assertThat(this.manager.lastTrackingResync()).isNull();
	}

	@Test
	void aManagerGivenNoThreadsRunsBothHeartbeatsOnOneSchedulerOfItsOwnAndStopsItWhenClosed() {
		RedisKitCache cache = this.manager.getCache("own-threads");
		awaitActive(cache);
		// The subscription's heartbeat and the tracking's, both started once the near cache is active.
		assertThat(cacheSchedulers()).containsExactly("redis-kit-cache-scheduler");
		this.manager.close();
		await("the manager's scheduler stopped", () -> cacheSchedulers().isEmpty());
	}

	/** The platform threads of a cache manager's own that are not its per-task threads ({@code redis-kit-cache-N}). */
	private static List<String> cacheSchedulers() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter(Thread::isAlive)
			.map(Thread::getName)
			.filter((name) -> name.startsWith("redis-kit-cache") && !name.matches("redis-kit-cache-\\d+"))
			.toList();
	}

	@Test
	void writesByAPlainConnectionAreNeverServedStaleOnceTheirInvalidationArrived() throws Exception {
		RedisKitCache cache = this.manager.getCache("plain-writes");
		awaitActive(cache);
		assertThat(cache.nearCacheInvalidation()).isEqualTo("tracking");
		String key = "rk:cache:{plain-writes:lamp}";
		StaleReadCheck check = new StaleReadCheck();
		AtomicLong floor = new AtomicLong(0);
		this.plain.set(key, json(0));
		AtomicBoolean writing = new AtomicBoolean(true);
		// A second reader races the writes: its reads' replies are overtaken by invalidations, the case the
		// near cache's stamp is for.
		Thread reader = new Thread(() -> {
			while (writing.get()) {
				long atStart = floor.get();
				check.record(atStart, StaleReadCheck.numberOf(value(cache, "lamp")));
				Thread.yield();
			}
		}, "near-cache-reader");
		reader.start();
		int writes = 1000;
		long slowest = 0;
		try {
			for (int n = 1; n <= writes; n++) {
				long invalidations = this.counts.invalidations.get();
				long written = System.nanoTime();
				this.plain.set(key, json(n));
				await("the invalidation of write " + n, () -> this.counts.invalidations.get() > invalidations);
				slowest = Math.max(slowest, System.nanoTime() - written);
				floor.set(n);
				check.record(n, StaleReadCheck.numberOf(value(cache, "lamp")));
				check.record(n, StaleReadCheck.numberOf(value(cache, "lamp")));
			}
		}
		finally {
			writing.set(false);
			reader.join(TimeUnit.SECONDS.toMillis(10));
		}
		System.out.printf("[%s] %d plain writes, %d reads checked, %d near hits; slowest invalidation %d ms%n",
				this.topology, writes, check.reads(), this.counts.nearHits.get(),
				TimeUnit.NANOSECONDS.toMillis(slowest));
		assertThat(check.violations()).isEmpty();
		assertThat(this.counts.nearHits.get()).isGreaterThanOrEqualTo(writes / 2);
	}

	@Test
	void anExpiryDropsTheNearCopy() {
		RedisKitCache cache = this.manager.getCache("expiry");
		awaitActive(cache);
		cache.put("lamp", "v1");
		readUntilNearHit(cache, "lamp", "v1");
		long invalidations = this.counts.invalidations.get();
		this.plain.pexpire("rk:cache:{expiry:lamp}", 300);
		// PEXPIRE is a write of its own: its invalidation comes first.
		await("the invalidation of PEXPIRE", () -> this.counts.invalidations.get() > invalidations);
		if (value(cache, "lamp") != null) {
			long beforeExpiry = this.counts.invalidations.get();
			await("the invalidation of the expiry", () -> this.counts.invalidations.get() > beforeExpiry);
		}
		assertThat(value(cache, "lamp")).isNull();
		assertThat(cache.nearCacheSize()).isZero();
	}

	@Test
	void flushdbDropsEveryNearCopy() {
		RedisKitCache cache = this.manager.getCache("flushed");
		awaitActive(cache);
		cache.put("lamp", "v1");
		cache.put("desk", "v2");
		readUntilNearHit(cache, "lamp", "v1");
		readUntilNearHit(cache, "desk", "v2");
		long invalidations = this.counts.invalidations.get();
		this.plain.flushdb();
		await("the null invalidation of FLUSHDB", () -> this.counts.invalidations.get() > invalidations);
		assertThat(cache.nearCacheSize()).isZero();
		assertThat(value(cache, "lamp")).isNull();
		assertThat(value(cache, "desk")).isNull();
	}

	@Test
	void anEvictionUnderMaxmemoryDropsTheNearCopy() {
		RedisKitCache cache = this.manager.getCache("evicted");
		awaitActive(cache);
		cache.put("lamp", "v1");
		readUntilNearHit(cache, "lamp", "v1");
		RedisServerProcess master = master();
		long invalidations = this.counts.invalidations.get();
		long used = Long.parseLong(info(master, "memory", "used_memory"));
		// Just above what the server holds now: the writes of keys outside the caches' prefix (not tracked) fill
		// it, and the least recently used keys go, the cached entry among them, since the near cache answers its
		// reads.
		master.command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
		master.command("CONFIG", "SET", "maxmemory", Long.toString(used + 512 * 1024));
		String filler = "x".repeat(1024);
		int written = 0;
		try {
			while (this.plain.exists("rk:cache:{evicted:lamp}") == 1) {
				assertThat(written).as("fillers written before the entry was evicted").isLessThan(200_000);
				this.plain.set("filler:" + written++, filler);
			}
			await("the invalidation of the eviction", () -> this.counts.invalidations.get() > invalidations);
			System.out.printf("[%s] the cached entry was evicted after %d fillers of 1 KB%n", this.topology, written);
			assertThat(cache.nearCacheSize()).isZero();
			assertThat(value(cache, "lamp")).isNull();
		}
		finally {
			master.command("CONFIG", "SET", "maxmemory", "0");
			master.command("CONFIG", "SET", "maxmemory-policy", "noeviction");
			this.plain.flushdb();
		}
	}

	@Test
	void aKilledSubscriberFlushesAndBypassesAPubSubNearCacheUntilItIsSubscribedAgain() {
		CacheSpec pubsub = CacheSpec.defaults()
			.withNearCache(NearCacheSpec.defaults().withInvalidation(NearCacheInvalidation.PUBSUB));
		Counts own = new Counts();
		LettuceConnectionFactory otherConnections = factory(null);
		RedisKitCacheManager reader = CacheTesting.manager(this.connections, pubsub, List.of(own));
		RedisKitCacheManager writer = CacheTesting.manager(otherConnections, pubsub, List.of());
		try {
			RedisKitCache cache = reader.getCache("subscriber");
			awaitActive(cache);
			assertThat(cache.nearCacheInvalidation()).isEqualTo("pubsub");
			cache.put("lamp", "v1");
			long hits = own.nearHits.get();
			for (int i = 0; i < 50 && own.nearHits.get() == hits; i++) {
				assertThat(value(cache, "lamp")).isEqualTo("v1");
			}
			assertThat(own.nearHits.get()).isGreaterThan(hits);
			long start = System.nanoTime();
			// Every subscriber of the master goes, the reader's among them; the writer's message of v2 may be
			// published before the reader has subscribed again, and so never reach it.
			this.plain.clientKill(io.lettuce.core.KillArgs.Builder.typePubsub());
			writer.getCache("subscriber").put("lamp", "v2");
			await("the loss noticed", () -> cache.nearCacheSize() == 0 || !cache.nearCacheActive());
			assertNeverStaleThroughTheResync(this.topology, cache, "lamp", "CLIENT KILL TYPE pubsub", start);
			// Subscribed again: the writer's next write reaches the reader's near cache.
			long invalidations = own.invalidations.get();
			writer.getCache("subscriber").put("lamp", "v3");
			await("the message of a write after the resubscription", () -> own.invalidations.get() > invalidations);
			assertThat(value(cache, "lamp")).isEqualTo("v3");
		}
		finally {
			reader.close();
			writer.close();
			otherConnections.destroy();
		}
	}

	@Test
	void tenThousandWritesFromThreeInstancesAreNeverReadStale() {
		int instances = 3;
		int writes = 10_000;
		List<LettuceConnectionFactory> factories = new java.util.ArrayList<>();
		List<RedisKitCacheManager> managers = new java.util.ArrayList<>();
		List<Counts> counts = new java.util.ArrayList<>();
		List<RedisKitCache> caches = new java.util.ArrayList<>();
		try {
			for (int i = 0; i < instances; i++) {
				LettuceConnectionFactory connections = factory(null);
				factories.add(connections);
				Counts instance = new Counts();
				counts.add(instance);
				RedisKitCacheManager manager = CacheTesting.manager(connections, NEAR, List.of(instance));
				managers.add(manager);
				RedisKitCache cache = manager.getCache("three");
				awaitActive(cache);
				assertThat(cache.nearCacheInvalidation()).isEqualTo("tracking");
				caches.add(cache);
			}
			StaleReadCheck check = new StaleReadCheck();
			for (int n = 1; n <= writes; n++) {
				long[] before = new long[instances];
				for (int i = 0; i < instances; i++) {
					before[i] = counts.get(i).invalidations.get();
				}
				caches.get(n % instances).put("lamp", "v" + n);
				for (int i = 0; i < instances; i++) {
					Counts instance = counts.get(i);
					long was = before[i];
					await("instance " + i + " told of write " + n, () -> instance.invalidations.get() > was);
				}
				// Twice each: the first read may go to Redis and copy the value, the second be a near hit.
				for (RedisKitCache cache : caches) {
					check.record(n, StaleReadCheck.numberOf(value(cache, "lamp")));
					check.record(n, StaleReadCheck.numberOf(value(cache, "lamp")));
				}
			}
			long nearHits = counts.stream().mapToLong((instance) -> instance.nearHits.get()).sum();
			System.out.printf("[%s] %d writes from %d instances, %d reads checked, %d near hits%n", this.topology,
					writes, instances, check.reads(), nearHits);
			assertThat(check.violations()).isEmpty();
			assertThat(nearHits).isGreaterThanOrEqualTo(writes);
		}
		finally {
			managers.forEach(RedisKitCacheManager::close);
			factories.forEach(LettuceConnectionFactory::destroy);
		}
	}

	@Test
	void aKilledTrackingConnectionFlushesAndBypassesTheNearCacheUntilTrackingIsOnAgain() {
		RedisKitCache cache = this.manager.getCache("killed");
		awaitActive(cache);
		cache.put("lamp", "v1");
		readUntilNearHit(cache, "lamp", "v1");
		String id = trackingClientId();
		long start = System.nanoTime();
		// The kill and a write in one transaction: the write's invalidation cannot reach the killed connection.
		this.plain.multi();
		this.plain.clientKill(io.lettuce.core.KillArgs.Builder.id(Long.parseLong(id)));
		this.plain.set("rk:cache:{killed:lamp}", json(2));
		this.plain.exec();
		await("the loss noticed", () -> cache.nearCacheSize() == 0);
		assertNeverStaleThroughTheResync(this.topology, cache, "lamp", "CLIENT KILL of the tracking connection", start);
		System.out.printf("[%s] CLIENT KILL: bypassed %s as the manager measured it (loss to tracking on)%n",
				this.topology, bypassed(this.manager));
		assertThat(trackingClientId()).isNotEqualTo(id);
		assertTrackedAgain(cache, "killed", "lamp", 3);
	}

	@Test
	void aRestartedOrFailedOverServerFlushesAndBypassesTheNearCacheUntilTrackingIsOnAgain() {
		RedisKitCache cache = this.manager.getCache("restarted");
		awaitActive(cache);
		cache.put("lamp", "v1");
		readUntilNearHit(cache, "lamp", "v1");
		long start = System.nanoTime();
		String fault;
		RedisServerProcess serving;
		if (this.topology == Topology.SENTINEL) {
			fault = "Sentinel failover";
			serving = this.redis.sentinel().failover();
		}
		else {
			fault = "server restart";
			this.redis.standalone().restart();
			serving = this.redis.standalone();
		}
		// Sentinel closes the former master's connections when it makes it a replica (some seconds after a
		// SENTINEL FAILOVER); until then the application, its plain clients and the tracking connection still use it.
		// Any tracking connection there is a new one: the restarted server's, or the promoted replica's.
		await("the tracking connection on the serving master", () -> hasTrackingClient(serving),
				Duration.ofSeconds(30));
		long moved = System.nanoTime();
		awaitActive(cache);
		long active = System.nanoTime();
		long invalidations = this.counts.invalidations.get();
		serving.command("SET", "rk:cache:{restarted:lamp}", json(2));
		StaleReadCheck check = new StaleReadCheck();
		// Written on the serving master directly: the near cache must not answer with its copy of v1 once the
		// write's invalidation arrived, nor any copy from before the fault.
		await("the invalidation of a write on the serving master",
				() -> this.counts.invalidations.get() > invalidations || cache.nearCacheSize() == 0);
		for (int i = 0; i < 20; i++) {
			check.record(2, StaleReadCheck.numberOf(value(cache, "lamp")));
		}
		System.out.printf("[%s] %s: tracking connection on the serving master %d ms after the fault, near cache"
				+ " active %d ms after the fault; bypassed %s (from the loss to tracking on again)%n",
				this.topology, fault, TimeUnit.NANOSECONDS.toMillis(moved - start),
				TimeUnit.NANOSECONDS.toMillis(active - start), bypassed(this.manager));
		assertThat(check.violations()).isEmpty();
		assertTrackedAgain(cache, "restarted", "lamp", 3, serving);
	}

	@Test
	void aClientPinnedToResp2FallsBackToPubSubInAutoModeAndStaysBypassedInTrackingMode() {
		LettuceConnectionFactory resp2 = factory(
				ClientOptions.builder().protocolVersion(ProtocolVersion.RESP2).build());
		RedisKitCacheManager auto = CacheTesting.manager(resp2, NEAR, List.of());
		RedisKitCacheManager tracking = CacheTesting.manager(resp2, CacheSpec.defaults()
			.withNearCache(NearCacheSpec.defaults().withInvalidation(NearCacheInvalidation.TRACKING)), List.of());
		try {
			RedisKitCache onAuto = auto.getCache("resp2");
			awaitActive(onAuto);
			assertThat(onAuto.nearCacheInvalidation()).isEqualTo("pubsub");
			RedisKitCache onTracking = tracking.getCache("resp2");
			assertThat(onTracking.nearCacheInvalidation()).isEqualTo("none");
			assertThat(onTracking.nearCacheActive()).isFalse();
			onTracking.put("lamp", "v1");
			assertThat(value(onTracking, "lamp")).isEqualTo("v1");
			assertThat(onTracking.nearCacheSize()).isZero();
		}
		finally {
			auto.close();
			tracking.close();
			resp2.destroy();
		}
	}

	@Test
	void pubSubWhenAskedFor() {
		RedisKitCacheManager pubsub = CacheTesting.manager(this.connections, CacheSpec.defaults()
			.withNearCache(NearCacheSpec.defaults().withInvalidation(NearCacheInvalidation.PUBSUB)), List.of());
		try {
			RedisKitCache cache = pubsub.getCache("pubsub");
			awaitActive(cache);
			assertThat(cache.nearCacheInvalidation()).isEqualTo("pubsub");
		}
		finally {
			pubsub.close();
		}
	}

	/** A plain write is seen again: tracking is on, on the connection the driver made after the fault. */
	private void assertTrackedAgain(RedisKitCache cache, String cacheName, String key, int n) {
		assertTrackedAgain(cache, cacheName, key, n, null);
	}

	private void assertTrackedAgain(RedisKitCache cache, String cacheName, String key, int n,
			RedisServerProcess writer) {
		readUntilNearHit(cache, key, "v" + (n - 1));
		long invalidations = this.counts.invalidations.get();
		if (writer != null) {
			writer.command("SET", "rk:cache:{" + cacheName + ":" + key + "}", json(n));
		}
		else {
			this.plain.set("rk:cache:{" + cacheName + ":" + key + "}", json(n));
		}
		await("the invalidation of a write after the resync", () -> this.counts.invalidations.get() > invalidations);
		assertThat(value(cache, key)).isEqualTo("v" + n);
	}

	/**
	 * Once the loss of the connection that carries the invalidations was noticed: no read of the key returns less
	 * than write 2 while the near cache is bypassed, nor after it answers again; prints the window.
	 */
	static void assertNeverStaleThroughTheResync(Object run, RedisKitCache cache, String key, String fault,
			long start) {
		long noticed = System.nanoTime();
		StaleReadCheck check = new StaleReadCheck();
		while (!cache.nearCacheActive()) {
			check.record(2, StaleReadCheck.numberOf(value(cache, key)));
			assertThat(System.nanoTime() - start).isLessThan(Duration.ofSeconds(10).toNanos());
		}
		long active = System.nanoTime();
		printWindow(run, fault, start, noticed, active);
		for (int i = 0; i < 20; i++) {
			check.record(2, StaleReadCheck.numberOf(value(cache, key)));
		}
		assertThat(check.violations()).isEmpty();
	}

	private static void printWindow(Object run, String fault, long start, long noticed, long active) {
		System.out.printf("[%s] %s: near cache flushed after %d ms, bypassed until its invalidations flowed again %d ms"
				+ " after the fault (resync window %d ms)%n", run, fault,
				TimeUnit.NANOSECONDS.toMillis(noticed - start), TimeUnit.NANOSECONDS.toMillis(active - start),
				TimeUnit.NANOSECONDS.toMillis(active - noticed));
	}

	private RedisServerProcess master() {
		return (this.topology == Topology.SENTINEL) ? this.redis.sentinel().master() : this.redis.standalone();
	}

	private static String info(RedisServerProcess server, String section, String field) {
		for (String line : String.valueOf(server.command("INFO", section)).split("\r?\n")) {
			if (line.startsWith(field + ":")) {
				return line.substring(field.length() + 1).trim();
			}
		}
		throw new IllegalStateException("No " + field + " in INFO " + section);
	}

	private String trackingClientId() {
		RedisServerProcess master = master();
		String found = trackingClientIdOn(master);
		assertThat(found).as("the tracking connection in CLIENT LIST").isNotEmpty();
		return found;
	}

	static boolean hasTrackingClient(RedisServerProcess server) {
		try {
			return !trackingClientIdOn(server).isEmpty();
		}
		catch (IllegalStateException ex) {
			// Not up yet.
			return false;
		}
	}

	/** @return the id of the one connection with tracking on ({@code t} among its flags), empty if none */
	static String trackingClientIdOn(RedisServerProcess server) {
		Pattern client = Pattern.compile("id=(\\d+) .*flags=(\\S+)");
		String found = "";
		for (String line : String.valueOf(server.command("CLIENT", "LIST")).split("\n")) {
			Matcher matcher = client.matcher(line);
			if (matcher.find() && matcher.group(2).contains("t")) {
				assertThat(found).as("one tracking connection").isEmpty();
				found = matcher.group(1);
			}
		}
		return found;
	}

	private void readUntilNearHit(RedisKitCache cache, String key, String expected) {
		readUntilNearHit(this.counts, cache, key, expected);
	}

	static void readUntilNearHit(Counts counts, RedisKitCache cache, String key, String expected) {
		long hits = counts.nearHits.get();
		for (int i = 0; i < 50 && counts.nearHits.get() == hits; i++) {
			assertThat(value(cache, key)).isEqualTo(expected);
		}
		assertThat(counts.nearHits.get()).isGreaterThan(hits);
	}

	static Object value(RedisKitCache cache, String key) {
		org.springframework.cache.Cache.ValueWrapper wrapper = cache.get(key);
		return (wrapper != null) ? wrapper.get() : null;
	}

	/** How the cache's JSON writes the string {@code v<n>}. */
	static String json(long n) {
		return "\"v" + n + "\"";
	}

	/** @return how long the near caches were last bypassed, or "never" if trust was never lost (none is measured) */
	static String bypassed(RedisKitCacheManager manager) {
		Duration resync = manager.lastTrackingResync();
		return (resync != null) ? resync.toMillis() + " ms" : "never";
	}

	static void awaitActive(RedisKitCache cache) {
		await("the near cache active", cache::nearCacheActive);
	}

	static void await(String what, BooleanSupplier condition) {
		await(what, condition, Duration.ofSeconds(10));
	}

	static void await(String what, BooleanSupplier condition, Duration bound) {
		long deadline = System.nanoTime() + bound.toNanos();
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime() - deadline).as("waiting for " + what).isNegative();
			LockSupport.parkNanos(20_000);
		}
	}

	private LettuceConnectionFactory factory(ClientOptions options) {
		LettuceClientConfiguration.LettuceClientConfigurationBuilder builder = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(5));
		if (options != null) {
			builder.clientOptions(options);
		}
		LettuceClientConfiguration client = builder.build();
		LettuceConnectionFactory factory;
		if (this.topology == Topology.SENTINEL) {
			RedisSentinelConfiguration configuration = new RedisSentinelConfiguration();
			configuration.master(RedisSentinelGroup.MASTER_NAME);
			for (RedisServerProcess node : this.redis.sentinel().sentinels()) {
				configuration.sentinel(node.host(), node.port());
			}
			factory = new LettuceConnectionFactory(configuration, client);
		}
		else {
			factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(this.redis.standalone().host(), this.redis.standalone().port()),
					client);
		}
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private RedisURI plainUri() {
		if (this.topology == Topology.SENTINEL) {
			List<RedisServerProcess> sentinels = this.redis.sentinel().sentinels();
			RedisURI.Builder builder = RedisURI.Builder.sentinel(sentinels.get(0).host(), sentinels.get(0).port(),
					RedisSentinelGroup.MASTER_NAME);
			for (RedisServerProcess node : sentinels.subList(1, sentinels.size())) {
				builder.withSentinel(node.host(), node.port());
			}
			return builder.build();
		}
		return RedisURI.create(this.redis.standalone().host(), this.redis.standalone().port());
	}

	/** Counts near hits and near invalidations without keeping events (thousands of writes). */
	static final class Counts implements CacheListener {

		final AtomicLong nearHits = new AtomicLong();

		final AtomicLong invalidations = new AtomicLong();

		@Override
		public void onHit(String cacheName, CacheTier tier) {
			if (tier == CacheTier.NEAR) {
				this.nearHits.incrementAndGet();
			}
		}

		@Override
		public void onNearInvalidation(String cacheName) {
			this.invalidations.incrementAndGet();
		}

	}

}
