package io.rediskit.cache;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.rediskit.cache.NearCacheTrackingTests.Counts;
import io.rediskit.testsupport.RedisCluster;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.rediskit.cache.NearCacheTrackingTests.assertNeverStaleThroughTheResync;
import static io.rediskit.cache.NearCacheTrackingTests.await;
import static io.rediskit.cache.NearCacheTrackingTests.awaitActive;
import static io.rediskit.cache.NearCacheTrackingTests.hasTrackingClient;
import static io.rediskit.cache.NearCacheTrackingTests.json;
import static io.rediskit.cache.NearCacheTrackingTests.readUntilNearHit;
import static io.rediskit.cache.NearCacheTrackingTests.trackingClientIdOn;
import static io.rediskit.cache.NearCacheTrackingTests.value;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The near cache under server-assisted tracking on a private Redis Cluster (3 masters, a replica each; faults are
 * injected): a tracking connection per master, writes by a plain Lettuce cluster connection to keys on every
 * master, one master's tracking connection killed, one master failed over. The application's factory is Spring
 * Data's with no topology refresh of its own: the tracking follows the cluster by itself. {@link StaleReadCheck}
 * judges the reads; the resync windows are printed. Waits are for conditions, each bounded; there are no sleeps.
 */
class NearCacheClusterTrackingTests {

	private static final String RUN = "cluster";

	private static final CacheSpec NEAR = CacheSpec.defaults()
		.withNearCache(new NearCacheSpec(1000, Duration.ofMinutes(1), NearCacheInvalidation.AUTO));

	static RedisCluster cluster;

	LettuceConnectionFactory connections;

	RedisKitCacheManager manager;

	final Counts counts = new Counts();

	RedisClusterClient plainClient;

	RedisAdvancedClusterCommands<String, String> plain;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start();
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@BeforeEach
	void setUp() {
		this.connections = new LettuceConnectionFactory(new RedisClusterConfiguration(cluster.nodeAddresses()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
		this.connections.afterPropertiesSet();
		this.connections.start();
		this.manager = CacheTesting.manager(this.connections, NEAR, List.of(this.counts));
		this.plainClient = RedisClusterClient.create(cluster.nodeAddresses().stream()
			.map((address) -> RedisURI.create("redis://" + address))
			.toList());
		this.plain = this.plainClient.connect().sync();
	}

	@AfterEach
	void tearDown() {
		this.manager.close();
		this.connections.destroy();
		this.plainClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	@Test
	void eachMasterHasOneTrackingConnectionInBothModes() {
		RedisKitCache cache = this.manager.getCache("masters");
		awaitActive(cache);
		assertThat(cache.nearCacheInvalidation()).isEqualTo("tracking");
		for (RedisServerProcess master : cluster.masters()) {
			assertThat(trackingClientIdOn(master)).as("the tracking connection on " + master).isNotEmpty();
		}
		for (RedisServerProcess replica : cluster.replicas()) {
			assertThat(trackingClientIdOn(replica)).as("no tracking connection on replica " + replica).isEmpty();
		}
		// Tracking only, no longer refused on Cluster.
		RedisKitCacheManager tracking = CacheTesting.manager(this.connections, CacheSpec.defaults()
			.withNearCache(NearCacheSpec.defaults().withInvalidation(NearCacheInvalidation.TRACKING)), List.of());
		try {
			RedisKitCache onTracking = tracking.getCache("masters");
			awaitActive(onTracking);
			assertThat(onTracking.nearCacheInvalidation()).isEqualTo("tracking");
		}
		finally {
			tracking.close();
		}
	}

	@Test
	void writesByAPlainClusterConnectionToKeysOnEveryMasterAreNeverServedStaleOnceTheirInvalidationArrived() {
		RedisKitCache cache = this.manager.getCache("plain-writes");
		awaitActive(cache);
		List<String> keys = List.copyOf(keysOnEveryMaster("plain-writes").values());
		Map<String, StaleReadCheck> checks = new LinkedHashMap<>();
		keys.forEach((key) -> {
			checks.put(key, new StaleReadCheck());
			this.plain.set(entry("plain-writes", key), json(0));
		});
		int writes = 900;
		long slowest = 0;
		for (int n = 1; n <= writes; n++) {
			String key = keys.get(n % keys.size());
			long invalidations = this.counts.invalidations.get();
			long written = System.nanoTime();
			this.plain.set(entry("plain-writes", key), json(n));
			await("the invalidation of write " + n + " to " + key, () -> this.counts.invalidations.get() > invalidations);
			slowest = Math.max(slowest, System.nanoTime() - written);
			// Twice: the first read may go to Redis and copy the value, the second be a near hit.
			checks.get(key).record(n, StaleReadCheck.numberOf(value(cache, key)));
			checks.get(key).record(n, StaleReadCheck.numberOf(value(cache, key)));
		}
		long reads = checks.values().stream().mapToLong(StaleReadCheck::reads).sum();
		System.out.printf("[%s] %d plain writes to %d keys on %d masters, %d reads checked, %d near hits; slowest"
				+ " invalidation %d ms%n", RUN, writes, keys.size(), keys.size(), reads, this.counts.nearHits.get(),
				TimeUnit.NANOSECONDS.toMillis(slowest));
		checks.forEach((key, check) -> assertThat(check.violations()).as(key).isEmpty());
		assertThat(this.counts.nearHits.get()).isGreaterThanOrEqualTo(writes / 2);
	}

	@Test
	void aKilledTrackingConnectionOfOneMasterFlushesAndBypassesTheNearCacheUntilTrackingIsOnAgain() {
		RedisKitCache cache = this.manager.getCache("killed");
		Map<RedisServerProcess, String> keys = nearCopiesOnEveryMaster(cache);
		RedisServerProcess master = keys.keySet().iterator().next();
		String key = keys.get(master);
		String id = trackingClientIdOn(master);
		assertThat(id).as("the tracking connection on " + master).isNotEmpty();
		RedisClient direct = RedisClient.create(RedisURI.create(master.host(), master.port()));
		long start;
		try (StatefulRedisConnection<String, String> connection = direct.connect()) {
			RedisCommands<String, String> commands = connection.sync();
			start = System.nanoTime();
			// The kill and a write in one transaction: the write's invalidation cannot reach the killed connection.
			commands.multi();
			commands.clientKill(KillArgs.Builder.id(Long.parseLong(id)));
			commands.set(entry("killed", key), json(2));
			commands.exec();
		}
		finally {
			direct.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
		await("the loss noticed", () -> cache.nearCacheSize() == 0);
		assertNeverStaleThroughTheResync(RUN, cache, key, "CLIENT KILL of one master's tracking connection", start);
		System.out.printf("[%s] CLIENT KILL: bypassed %s as the manager measured it (loss to tracking on)%n", RUN,
				NearCacheTrackingTests.bypassed(this.manager));
		assertThat(trackingClientIdOn(master)).isNotEmpty().isNotEqualTo(id);
		// Every master tracked again: a plain write to each is seen.
		for (String other : keys.values()) {
			assertTrackedAgain(cache, "killed", other, other.equals(key) ? 3 : 2);
		}
	}

	@Test
	void aFailoverOfOneMasterMovesTrackingToTheNewMaster() {
		RedisKitCache cache = this.manager.getCache("failover");
		Map<RedisServerProcess, String> keys = nearCopiesOnEveryMaster(cache);
		RedisServerProcess former = keys.keySet().iterator().next();
		String key = keys.get(former);
		long start = System.nanoTime();
		RedisServerProcess promoted = cluster.failover(former);
		assertTrackingMovedTo(promoted, cache, key, "CLUSTER FAILOVER", start);
		await("tracking off on the demoted master", () -> !hasTrackingClient(former));
		for (RedisServerProcess master : cluster.masters()) {
			assertThat(trackingClientIdOn(master)).as("the tracking connection on " + master).isNotEmpty();
		}
		assertTrackedAgain(cache, "failover", key, 3);
	}

	@Test
	void aKilledMasterIsReplacedAndTrackingMovesToItsReplica() {
		RedisKitCache cache = this.manager.getCache("dead-master");
		Map<RedisServerProcess, String> keys = nearCopiesOnEveryMaster(cache);
		RedisServerProcess dead = keys.keySet().iterator().next();
		long start = System.nanoTime();
		RedisServerProcess promoted = cluster.killMaster(dead);
		try {
			assertTrackingMovedTo(promoted, cache, keys.get(dead), "SIGKILL of a master", start);
		}
		finally {
			cluster.restart(dead);
		}
	}

	/**
	 * Once a replica was promoted: tracking on it, the near cache answering again, and a write on it (directly: a
	 * plain client's view may still name the former master) never read stale once its invalidation arrived.
	 */
	private void assertTrackingMovedTo(RedisServerProcess promoted, RedisKitCache cache, String key, String fault,
			long start) {
		long promotedAt = System.nanoTime();
		await("the tracking connection on the promoted master", () -> hasTrackingClient(promoted),
				Duration.ofSeconds(30));
		long moved = System.nanoTime();
		awaitActive(cache);
		long active = System.nanoTime();
		System.out.printf("[%s] %s: replica promoted %d ms after the fault; tracking connection on it %d ms after,"
				+ " near cache active %d ms after; bypassed %s (from the loss to tracking on every master)%n", RUN,
				fault, TimeUnit.NANOSECONDS.toMillis(promotedAt - start), TimeUnit.NANOSECONDS.toMillis(moved - start),
				TimeUnit.NANOSECONDS.toMillis(active - start), NearCacheTrackingTests.bypassed(this.manager));
		long invalidations = this.counts.invalidations.get();
		promoted.command("SET", entry(cache.getName(), key), json(2));
		await("the invalidation of a write on the promoted master", () -> this.counts.invalidations.get() > invalidations);
		StaleReadCheck check = new StaleReadCheck();
		for (int i = 0; i < 20; i++) {
			check.record(2, StaleReadCheck.numberOf(value(cache, key)));
		}
		assertThat(check.violations()).isEmpty();
	}

	/** A plain write is seen: tracking is on on the master that runs it. */
	private void assertTrackedAgain(RedisKitCache cache, String cacheName, String key, int n) {
		readUntilNearHit(this.counts, cache, key, "v" + (n - 1));
		long invalidations = this.counts.invalidations.get();
		this.plain.set(entry(cacheName, key), json(n));
		await("the invalidation of a write to " + key, () -> this.counts.invalidations.get() > invalidations);
		assertThat(value(cache, key)).isEqualTo("v" + n);
	}

	/** Puts {@code v1} under a key on each master and reads until each is a near hit. */
	private Map<RedisServerProcess, String> nearCopiesOnEveryMaster(RedisKitCache cache) {
		awaitActive(cache);
		Map<RedisServerProcess, String> keys = keysOnEveryMaster(cache.getName());
		keys.values().forEach((key) -> cache.put(key, "v1"));
		keys.values().forEach((key) -> readUntilNearHit(this.counts, cache, key, "v1"));
		return keys;
	}

	/** One key of the cache on each master, as the cluster serves the slots now. */
	private static Map<RedisServerProcess, String> keysOnEveryMaster(String cacheName) {
		List<RedisServerProcess> masters = cluster.masters();
		Map<RedisServerProcess, String> keys = new LinkedHashMap<>();
		for (int i = 0; keys.size() < masters.size(); i++) {
			assertThat(i).as("keys tried to find one on every master").isLessThan(10_000);
			keys.putIfAbsent(cluster.masterFor(entry(cacheName, "lamp" + i)), "lamp" + i);
		}
		return keys;
	}

	private static String entry(String cacheName, String key) {
		return "rk:cache:{" + cacheName + ":" + key + "}";
	}

}
