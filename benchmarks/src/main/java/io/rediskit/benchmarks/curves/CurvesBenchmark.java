package io.rediskit.benchmarks.curves;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import io.lettuce.core.api.StatefulRedisConnection;
import io.rediskit.benchmarks.Benchmark;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.JsonWriter;
import io.rediskit.benchmarks.bloom.BloomCurves;
import io.rediskit.benchmarks.geo.GeoCurves;
import io.rediskit.benchmarks.keys.KeysCurves;
import io.rediskit.benchmarks.memory.MemoryBenchmark;
import io.rediskit.benchmarks.memory.ServerMemory;
import io.rediskit.benchmarks.queue.QueueCurves;

/**
 * {@code curves}: what each primitive costs as it grows, so that a user can size Redis, side by side with Redisson
 * where it has the primitive and with the floor where there is one, in one command:
 * <ul>
 * <li>{@code ratelimit}: Redis bytes per active key of every algorithm and of Redisson's {@code RRateLimiter} at
 * each limit, with the entries the logs keep per admitted call ({@link MemoryBenchmark#rateLimiters});</li>
 * <li>{@code geo}: search throughput and p99 as the index grows, unsharded and cell-sharded, and where they cross
 * ({@link GeoCurves});</li>
 * <li>{@code queue}: bytes per waiting message, enqueue and drain rates as the backlog grows
 * ({@link QueueCurves});</li>
 * <li>{@code bloom}: bytes per item at 1% and 0.1%, throughput by bits per shard ({@link BloomCurves});</li>
 * <li>{@code keys}: scan and big-key report time per 10^6 keys as the key space grows, and another client's p99
 * meanwhile ({@link KeysCurves}).</li>
 * </ul>
 * The sizes and the areas come from {@link CurveSizes} ({@code -Drediskit.benchmark.curves.*}, with a
 * {@code smoke} preset of tiny sizes); timing from the run's options. Each area writes
 * {@code curve-<area>.json} and its {@code curve-*.png} charts to the output directory, so that an area run
 * again alone replaces only its own files.
 */
public final class CurvesBenchmark implements Benchmark {

	private static final String FILE_PREFIX = "curve";

	@Override
	public String name() {
		return "curves";
	}

	@Override
	public void run(BenchmarkContext context) throws Exception {
		CurveSizes sizes = CurveSizes.from(System.getProperties());
		context.progress("curves: " + sizes);
		try (StatefulRedisConnection<byte[], byte[]> info = context.connectLettuce()) {
			ServerMemory meter = new ServerMemory(context, info);
			for (String area : sizes.areas()) {
				long start = System.nanoTime();
				Map<String, Object> results = switch (area) {
					case "ratelimit" -> MemoryBenchmark.rateLimiters(context, meter, sizes.limits(), FILE_PREFIX);
					case "geo" -> GeoCurves.run(context, sizes.geoMembers(), FILE_PREFIX);
					case "queue" -> QueueCurves.run(context, meter, sizes.queueWaiting(), FILE_PREFIX);
					case "bloom" -> BloomCurves.run(context, meter, sizes.bloomItems(), sizes.bloomShardBits(), FILE_PREFIX);
					case "keys" -> KeysCurves.run(context, sizes.keys(), FILE_PREFIX);
					default -> throw new IllegalStateException("No curve for area " + area);
				};
				Duration took = Duration.ofNanos(System.nanoTime() - start);
				System.out.printf("curve.%s done in %d s%n", area, took.toSeconds());
				Map<String, Object> json = new LinkedHashMap<>();
				json.put("benchmark", name() + " " + area);
				json.put("timestamp", Instant.now().toString());
				json.put("environment", context.environment());
				json.put("preset", sizes.preset());
				json.put("seconds", took.toMillis() / 1000.0);
				json.put("results", results);
				JsonWriter.write(context.options().outputDirectory().resolve(FILE_PREFIX + "-" + area + ".json"), json);
			}
		}
	}

}
