package io.rediskit.benchmarks.lock;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.rediskit.benchmarks.Benchmark;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.ConcurrentLoad.Outcome;
import io.rediskit.benchmarks.CpuFigures;
import io.rediskit.benchmarks.JsonWriter;
import io.rediskit.benchmarks.Spread;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.LockSpec;
import io.rediskit.lock.MultiLock;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.LuaScript;
import org.redisson.RedissonMultiLock;
import org.redisson.api.RLock;

/**
 * {@code multilock}: acquire then release of three names at once, each thread with names of its own (nobody
 * waits): redis-kit's {@link MultiLock} (one {@code multilock_acquire.lua} for the three, then the three
 * releases sent together) against Redisson's {@link RedissonMultiLock} over three {@code RLock}s, both with
 * their watchdog defaults, and the same-script floor: the same acquire script and the three {@code
 * release_last.lua} calls by bare Lettuce {@code EVALSHA} (the releases pipelined, as redis-kit sends them) on one
 * shared connection. On a server that is not a cluster the three names are one script, as on Cluster when they
 * share a slot; rounds alternate the order of the libraries and each one's median round is reported.
 */
public final class MultiLockBenchmark implements Benchmark {

	/** Each thread takes three names of its own. */
	public static final String UNCONTENDED = "multilock.uncontended";

	private static final String FLOOR = "lettuce-evalsha";

	@Override
	public String name() {
		return "multilock";
	}

	@Override
	public void run(BenchmarkContext context) throws Exception {
		String timestamp = Instant.now().toString();
		try (LockRegistry registry = new LockRegistry(context.connectionFactory());
				StatefulRedisConnection<byte[], byte[]> floorConnection = context.connectLettuce()) {
			Floor floor = new Floor(floorConnection);
			Map<String, Function<List<String>, LockCycle>> libraries = new LinkedHashMap<>();
			libraries.put("redis-kit", (names) -> redisKit(registry, names));
			libraries.put("redisson", (names) -> LockCycle.of(new RedissonMultiLock(names.stream()
				.map((name) -> context.redisson().getLock(name))
				.toArray(RLock[]::new))));
			libraries.put(FLOOR, floor::cycle);
			Map<String, Outcome> medians = new LinkedHashMap<>();
			Map<String, Spread> spreads = new LinkedHashMap<>();
			context.medianRounds(UNCONTENDED, List.copyOf(libraries.keySet()),
					(library) -> uncontended(context, library, libraries.get(library)), Outcome::opsPerSecond)
				.forEach((library, median) -> {
					medians.put(library, median.round());
					spreads.put(library, median.spread());
				});
			double redisKit = medians.get("redis-kit").opsPerSecond();
			double ratio = redisKit / medians.get("redisson").opsPerSecond();
			double ofFloor = Spread.paired(spreads.get("redis-kit"), spreads.get(FLOOR)).median();
			CpuFigures cpu = context.cpu(UNCONTENDED);
			System.out.println(String.format(Locale.ROOT,
					"%s redis-kit=%d redisson=%d ratio=%.2f floor=%d %s %s %s", UNCONTENDED,
					Math.round(redisKit), Math.round(medians.get("redisson").opsPerSecond()), ratio,
					Math.round(medians.get(FLOOR).opsPerSecond()),
					Spread.ofFloorToken(spreads.get("redis-kit"), spreads.get(FLOOR)), Spread.token(spreads),
					cpu.token("redisson")));
			Map<String, Object> json = new LinkedHashMap<>();
			json.put("benchmark", name());
			json.put("timestamp", timestamp);
			json.putAll(context.environment());
			Map<String, Object> byLibrary = new LinkedHashMap<>();
			medians.forEach((library, outcome) -> {
				Map<String, Object> figures = new LinkedHashMap<>();
				figures.put("opsPerSecond", Math.round(outcome.opsPerSecond()));
				figures.put("operations", outcome.operations());
				figures.put("errors", outcome.errors());
				figures.putAll(spreads.get(library).toJson());
				figures.putAll(cpu.toJson(library));
				byLibrary.put(library, figures);
			});
			json.put("scenarios", List.of(Map.of("scenario", UNCONTENDED, "ratio", Math.round(ratio * 100) / 100.0,
					"ofFloor", Math.round(ofFloor * 100) / 100.0, "clientCpuRatio",
					Math.round(cpu.clientRatio("redisson") * 100) / 100.0, "cpuRatio",
					Math.round(cpu.totalRatio("redisson") * 100) / 100.0, "libraries", byLibrary)));
			Path file = context.options().outputDirectory().resolve(name() + ".json");
			JsonWriter.write(file, json);
			context.progress("Wrote " + file);
		}
	}

	private Outcome uncontended(BenchmarkContext context, String library,
			Function<List<String>, LockCycle> locks) throws InterruptedException {
		List<LockCycle> cycles = new ArrayList<>();
		for (int i = 0; i < context.options().threads(); i++) {
			String base = "bench:" + library + ":multi:" + i + ":";
			cycles.add(locks.apply(List.of(base + "a", base + "b", base + "c")));
		}
		return context.load(UNCONTENDED + " " + library).run((thread) -> {
			LockCycle cycle = cycles.get(thread);
			cycle.lock();
			cycle.unlock();
		});
	}

	private static LockCycle redisKit(LockRegistry registry, List<String> names) {
		MultiLock multi = registry.getMultiLock(names);
		return new LockCycle() {

			private MultiLock.MultiLease lease;

			@Override
			public void lock() {
				this.lease = multi.acquire(Duration.ZERO);
			}

			@Override
			public void unlock() {
				this.lease.close();
			}

		};
	}

	/**
	 * The same scripts by bare Lettuce. <b>Written against</b> {@code LockScripts.acquireAll} and
	 * {@code LockScripts.releaseLast} (package-private in the starter): change it with them.
	 * {@code multilock_acquire.lua}: {@code KEYS = [lock 1, fence 1, lock 2, fence 2, ...]}; owner, lease in ms,
	 * request id, fence ttl in ms. {@code release_last.lua}: {@code KEYS = [lock]}; owner, channel.
	 */
	private static final class Floor {

		private static final LuaScript ACQUIRE = LuaScript
			.fromClasspath("META-INF/redis-kit/scripts/lock/multilock_acquire.lua");

		private static final LuaScript RELEASE = LuaScript.fromClasspath("META-INF/redis-kit/scripts/lock/release_last.lua");

		private static final byte[] LEASE_MILLIS = ascii(LockSpec.defaults().watchdogTimeout().toMillis());

		private static final byte[] FENCE_TTL_MILLIS = ascii(Duration.ofDays(1).toMillis());

		private final String instanceId = UUID.randomUUID().toString();

		private final AtomicLong sequence = new AtomicLong();

		private final RedisAsyncCommands<byte[], byte[]> commands;

		Floor(StatefulRedisConnection<byte[], byte[]> connection) {
			this.commands = connection.async();
			for (LuaScript script : List.of(ACQUIRE, RELEASE)) {
				connection.sync().scriptLoad(script.source().getBytes(StandardCharsets.UTF_8));
			}
		}

		LockCycle cycle(List<String> names) {
			KeyNaming naming = KeyNaming.defaults();
			byte[][] keys = new byte[names.size() * 2][];
			for (int i = 0; i < names.size(); i++) {
				keys[2 * i] = bytes(naming.key("lock", names.get(i)));
				keys[2 * i + 1] = bytes(naming.key("lock", names.get(i), "fence"));
			}
			byte[][] channels = names.stream().map((name) -> bytes(naming.key("lock", name, "released")))
				.toArray(byte[][]::new);
			return new LockCycle() {

				private byte[] owner;

				@Override
				public void lock() {
					this.owner = bytes(Floor.this.instanceId + ":l" + Floor.this.sequence.incrementAndGet());
					List<Object> reply = await(Floor.this.commands.evalsha(ACQUIRE.sha1(), ScriptOutputType.MULTI, keys,
							this.owner, LEASE_MILLIS, bytes(Long.toString(Floor.this.sequence.incrementAndGet(), 36)),
							FENCE_TTL_MILLIS));
					if ((Long) reply.get(0) != 1L) {
						throw new IllegalStateException(names + " held by another owner");
					}
				}

				@Override
				public void unlock() {
					List<RedisFuture<Long>> releases = new ArrayList<>();
					for (int i = 0; i < channels.length; i++) {
						releases.add(Floor.this.commands.evalsha(RELEASE.sha1(), ScriptOutputType.INTEGER,
								new byte[][] { keys[2 * i] }, this.owner, channels[i]));
					}
					for (RedisFuture<Long> release : releases) {
						if (await(release) != 0L) {
							throw new IllegalStateException(names + " not freed");
						}
					}
				}

			};
		}

		private static <T> T await(RedisFuture<T> future) {
			try {
				return future.get(10, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}

		private static byte[] bytes(String value) {
			return value.getBytes(StandardCharsets.UTF_8);
		}

		private static byte[] ascii(long value) {
			return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
		}

	}

}
