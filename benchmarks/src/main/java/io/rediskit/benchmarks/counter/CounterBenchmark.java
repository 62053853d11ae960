package io.rediskit.benchmarks.counter;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.rediskit.benchmarks.Benchmark;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.JsonWriter;
import io.rediskit.benchmarks.Spread;
import io.rediskit.counter.UniqueCounter;
import io.rediskit.counter.UniqueCounterRegistry;
import io.rediskit.counter.UniqueCounterSpec;
import io.rediskit.support.KeyNaming;
import org.redisson.api.RHyperLogLog;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * {@code counter}: unions of 2 and 5 unique counters of 10^5 members each, counted per second with the run's
 * threads, redis-kit's {@link UniqueCounterRegistry#countUnion} beside Redisson's {@link RHyperLogLog#countWith} in
 * the same run, on one server. Both send one {@code PFCOUNT} of every key there; on Redis Cluster, where the
 * counters' hash tags put them in different slots, redis-kit reads them with {@code GET} and counts copies in one
 * slot instead (Redisson's {@code countWith} fails there with {@code CROSSSLOT}). Each library runs in the run's
 * rounds, in a rotating order; the median round is reported with its {@link Spread}. Writes {@code counter.json}.
 */
public final class CounterBenchmark implements Benchmark {

	private static final int MEMBERS = 100_000;

	@Override
	public String name() {
		return "counter";
	}

	@Override
	public void run(BenchmarkContext context) throws Exception {
		UniqueCounterRegistry registry = new UniqueCounterRegistry(context.connectionFactory(), KeyNaming.defaults());
		String run = Long.toString(System.nanoTime(), 36);
		Map<String, Object> results = new LinkedHashMap<>();
		List<String> kitNames = new ArrayList<>();
		List<RHyperLogLog<String>> redisson = new ArrayList<>();
		for (int c = 0; c < 5; c++) {
			String name = "bench-" + run + "-" + c;
			UniqueCounter counter = registry.create(name, UniqueCounterSpec.daily(ZoneOffset.UTC));
			RHyperLogLog<String> peer = context.redisson().getHyperLogLog("bench-redisson-" + run + "-" + c);
			List<String> members = new ArrayList<>(MEMBERS);
			for (int i = 0; i < MEMBERS; i++) {
				members.add("v-" + (c * MEMBERS / 2 + i));
			}
			counter.addAll(members);
			peer.addAll(members);
			kitNames.add(name);
			redisson.add(peer);
		}
		for (int size : new int[] { 2, 5 }) {
			String[] names = kitNames.subList(0, size).toArray(String[]::new);
			String[] otherNames = redisson.subList(1, size).stream().map(RHyperLogLog::getName).toArray(String[]::new);
			String label = "counter.union" + size;
			Map<String, Spread> spreads = context.rounds(label, List.of("redis-kit", "redisson"),
					(library) -> context.load(label + " " + library)
						.run(library.equals("redis-kit") ? (thread) -> registry.countUnion(names)
								: (thread) -> redisson.get(0).countWith(otherNames))
						.opsPerSecond());
			double kitRate = spreads.get("redis-kit").median();
			double redissonRate = spreads.get("redisson").median();
			System.out.printf("%-18s redis-kit %,10.0f/s  redisson %,10.0f/s  ratio %.2fx  %s%n", label, kitRate,
					redissonRate, kitRate / redissonRate, Spread.token(spreads));
			Map<String, Object> result = new LinkedHashMap<>();
			result.put("redis-kit", kitRate);
			result.put("redisson", redissonRate);
			result.put("ratio", kitRate / redissonRate);
			spreads.forEach((library, spread) -> result.put(library + " rounds", spread.toJson()));
			results.put("union" + size, result);
		}
		for (RHyperLogLog<String> peer : redisson) {
			peer.delete();
		}
		try (RedisConnection connection = context.connectionFactory().getConnection()) {
			connection.keyCommands()
				.del(kitNames.stream()
					.map((name) -> KeyNaming.defaults().key("counter", name).getBytes(StandardCharsets.UTF_8))
					.toArray(byte[][]::new));
		}
		Files.createDirectories(context.options().outputDirectory());
		JsonWriter.write(context.options().outputDirectory().resolve("counter.json"),
				Map.of("environment", context.environment(), "unit", "unions counted per second", "results", results));
	}

}
