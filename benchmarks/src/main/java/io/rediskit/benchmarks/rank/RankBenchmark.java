package io.rediskit.benchmarks.rank;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.rediskit.benchmarks.Benchmark;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.ConcurrentLoad;
import io.rediskit.benchmarks.JsonWriter;
import io.rediskit.benchmarks.Spread;
import io.rediskit.rank.Leaderboard;
import io.rediskit.rank.LeaderboardListener;
import io.rediskit.rank.LeaderboardRegistry;
import io.rediskit.rank.LeaderboardSpec;
import io.rediskit.support.KeyNaming;
import org.redisson.api.RScoredSortedSet;

/**
 * {@code rank}: one operation is an increment of a random member among 10 000 and a read of the top 10 (with
 * scores), per second with the run's threads, for redis-kit's {@link Leaderboard} (no period boards: the
 * increment script over the all-time board, then the page script), Redisson's {@link RScoredSortedSet}
 * ({@code addScore} then {@code entryRangeReversed(0, 9)}) and the floor: bare Lettuce on one shared connection
 * sending the same increment script by {@code EVALSHA} and a plain {@code ZRANGE ... REV WITHSCORES}. Each library
 * runs in the run's rounds, in a rotating order; the median round is reported with its {@link Spread}. Writes
 * {@code rank.json}.
 */
public final class RankBenchmark implements Benchmark {

	private static final int MEMBERS = 10_000;

	@Override
	public String name() {
		return "rank";
	}

	@Override
	public void run(BenchmarkContext context) throws Exception {
		LeaderboardRegistry registry = new LeaderboardRegistry(context.connectionFactory(), KeyNaming.defaults(),
				LeaderboardListener.NONE);
		String run = Long.toString(System.nanoTime(), 36);
		Leaderboard kit = registry.create("bench-" + run, LeaderboardSpec.of(ZoneOffset.UTC));
		RScoredSortedSet<String> redisson = context.redisson().getScoredSortedSet("bench-redisson-" + run);
		Map<String, Object> results = new LinkedHashMap<>();
		try (StatefulRedisConnection<byte[], byte[]> connection = context.connectLettuce()) {
			RedisCommands<byte[], byte[]> floor = connection.sync();
			byte[] floorKey = bytes("bench-floor-" + run);
			String sha = floor.scriptLoad(incrementScript());
			Map<String, ConcurrentLoad.Operation> operations = new LinkedHashMap<>();
			operations.put("redis-kit", (thread) -> {
				kit.increment(member(), 1);
				kit.top(10);
			});
			operations.put("redisson", (thread) -> {
				redisson.addScore(member(), 1);
				redisson.entryRangeReversed(0, 9);
			});
			operations.put("floor", (thread) -> {
				floor.evalsha(sha, ScriptOutputType.MULTI, new byte[][] { floorKey }, bytes(member()), bytes("1"),
						new byte[0]);
				floor.zrevrangeWithScores(floorKey, 0, 9);
			});
			String label = "rank.increment+top10";
			Map<String, Spread> spreads = context.rounds(label, List.copyOf(operations.keySet()),
					(library) -> context.load(label + " " + library).run(operations.get(library)).opsPerSecond());
			Map<String, Object> result = Spread.reportAgainstPeerAndFloor(label, spreads, context.cpu(label));
			results.put("increment+top10", result);
			floor.del(floorKey);
		}
		kit.delete();
		redisson.delete();
		Files.createDirectories(context.options().outputDirectory());
		JsonWriter.write(context.options().outputDirectory().resolve("rank.json"),
				Map.of("environment", context.environment(), "unit", "operations per second", "results", results));
	}

	private static String member() {
		return "player-" + ThreadLocalRandom.current().nextInt(MEMBERS);
	}

	/** The script redis-kit sends, read from its jar: the floor runs the same Lua. */
	private static byte[] incrementScript() throws IOException {
		try (InputStream in = RankBenchmark.class.getClassLoader()
			.getResourceAsStream("META-INF/redis-kit/scripts/rank/increment.lua")) {
			if (in == null) {
				throw new IllegalStateException("increment.lua is missing from the class path");
			}
			return in.readAllBytes();
		}
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
