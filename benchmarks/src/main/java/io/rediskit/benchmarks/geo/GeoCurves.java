package io.rediskit.benchmarks.geo;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.api.StatefulRedisConnection;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.CurveChart;
import io.rediskit.benchmarks.MedianRound;
import io.rediskit.benchmarks.Spread;
import io.rediskit.geo.GeoIndex;
import io.rediskit.geo.GeoIndexRegistry;
import io.rediskit.geo.GeoIndexSpec;
import io.rediskit.geo.GeoPoint;
import io.rediskit.keys.DeleteOptions;
import io.rediskit.keys.KeyPatterns;
import io.rediskit.keys.KeyScanOptions;
import io.rediskit.keys.KeyTools;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import org.redisson.api.RGeo;
import org.redisson.client.codec.StringCodec;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The geo cost curve: the {@code geo} benchmark's search (the {@value GeoBenchmark#LIMIT} nearest within
 * {@value GeoBenchmark#RADIUS_METERS} m of a random point of a {@value GeoBenchmark#AREA_KM} km square) as the
 * index grows through the given member counts, unsharded, sharded by cell, Redisson's {@code RGeo} and the bare
 * driver's {@code GEOSEARCH} (the floor): searches per second and p50/p99 at each size, and the first size at which
 * the sharded index is at least as fast as the unsharded one.
 * <p>
 * The members stay in the same square, so a larger index is a denser one: a search finds more members within its
 * radius to sort (about 0.8 per 10^3 members of the index), as a city's bikes do when their number grows. At small
 * sizes a search may find fewer than {@value GeoBenchmark#LIMIT}: the mean found per search is reported.
 * <p>
 * Loaded fast and once: the members are added from one size to the next, through redis-kit's own pipelined
 * {@code putAllAsync} (batches of 10^5 members, sent as pipelined script calls of a thousand). Redisson searches
 * the unsharded index's set, which holds the same members in the same structure it would build itself (one geo
 * set), so the largest size is not loaded three times.
 */
public final class GeoCurves {

	private static final int LOAD_CHUNK = 100_000;

	private static final String REDIS_KIT_UNSHARDED = "redis-kit-unsharded";

	private static final String REDIS_KIT_CELLS = "redis-kit-cells";

	private GeoCurves() {
	}

	/**
	 * Grows the indexes through the sizes and measures at each.
	 * @param context the run
	 * @param sizes member counts, ascending
	 * @param filePrefix the charts go to {@code <filePrefix>-geo-throughput.png} and {@code <filePrefix>-geo-p99.png}
	 * @return the figures by size and library, and where the sharded index overtakes
	 * @throws Exception if the server cannot be reached or a chart cannot be written
	 */
	public static Map<String, Object> run(BenchmarkContext context, List<Long> sizes, String filePrefix)
			throws Exception {
		KeyNaming naming = new KeyNaming("bench:curves:");
		GeoIndexRegistry registry = new GeoIndexRegistry(ScriptExecutor.of(context.connectionFactory()),
				CommandExecutor.of(context.connectionFactory()), naming);
		String run = Long.toString(System.nanoTime(), 36);
		GeoIndex unsharded = registry.create("flat-" + run, GeoIndexSpec.unsharded());
		GeoIndex cells = registry.create("cells-" + run, GeoIndexSpec.byCell(GeoBenchmark.PRECISION));
		String flatKey = naming.key("geo", unsharded.name());
		RGeo<String> redisson = context.redisson().getGeo(flatKey, StringCodec.INSTANCE);
		KeyTools keyTools = new KeyTools((LettuceConnectionFactory) context.connectionFactory(), List.of());
		Map<String, Object> bySize = new LinkedHashMap<>();
		Map<String, List<Double>> throughput = new LinkedHashMap<>();
		Map<String, List<Double>> p99 = new LinkedHashMap<>();
		Long overtakesAt = null;
		try (StatefulRedisConnection<byte[], byte[]> floorConnection = context.connectLettuce()) {
			List<GeoBenchmark.Library> libraries = GeoBenchmark.libraries(unsharded, cells, redisson,
					floorConnection.sync(), flatKey.getBytes(StandardCharsets.UTF_8));
			SplittableRandom positions = new SplittableRandom(42);
			long loaded = 0;
			for (long size : sizes) {
				loaded = load(context, unsharded, cells, positions, loaded, size);
				GeoBenchmark.checkSameAnswers(context, libraries);
				Map<String, List<GeoBenchmark.Round>> rounds = new LinkedHashMap<>();
				for (int round = 0; round < context.options().rounds(); round++) {
					for (int i = 0; i < libraries.size(); i++) {
						GeoBenchmark.Library library = libraries.get((round + i) % libraries.size());
						rounds.computeIfAbsent(library.name(), (name) -> new ArrayList<>())
							.add(GeoBenchmark.measure(context, library));
					}
				}
				Map<String, Object> results = new LinkedHashMap<>();
				results.put("meanFoundPerSearch", meanFound(libraries.get(0)));
				Map<String, GeoBenchmark.Round> medians = new LinkedHashMap<>();
				Map<String, Spread> spreads = new LinkedHashMap<>();
				for (GeoBenchmark.Library library : libraries) {
					List<GeoBenchmark.Round> all = rounds.get(library.name());
					MedianRound<GeoBenchmark.Round> measured = MedianRound.of(context,
							"curve.geo " + size + " " + library.name(), all, GeoBenchmark.Round::opsPerSecond);
					GeoBenchmark.Round median = measured.round();
					medians.put(library.name(), median);
					spreads.put(library.name(), measured.spread());
					Map<String, Object> result = new LinkedHashMap<>();
					result.put("searchesPerSecond", Math.round(median.opsPerSecond()));
					result.put("p50Micros", Math.round(median.p50Micros()));
					result.put("p99Micros", Math.round(median.p99Micros()));
					result.put("searchesPerSecondByRound", all.stream().map((r) -> Math.round(r.opsPerSecond())).toList());
					result.put("errors", all.stream().mapToLong(GeoBenchmark.Round::errors).sum());
					measured.spread().addTo(result);
					results.put(library.name(), result);
					throughput.computeIfAbsent(library.name(), (name) -> new ArrayList<>()).add(median.opsPerSecond());
					p99.computeIfAbsent(library.name(), (name) -> new ArrayList<>()).add(median.p99Micros() / 1000);
				}
				double floor = medians.get("floor").opsPerSecond();
				double redissonRate = medians.get("redisson").opsPerSecond();
				medians.forEach((name, median) -> System.out.printf(
						"curve.geo %,11d members %-20s %,10.0f searches/s  p50 %,7.0f us  p99 %,7.0f us  %.2fx redisson"
								+ "  %.2f of floor  %s%n",
						size, name, median.opsPerSecond(), median.p50Micros(), median.p99Micros(),
						median.opsPerSecond() / redissonRate, median.opsPerSecond() / floor, spreads.get(name).token()));
				if (overtakesAt == null && medians.get(REDIS_KIT_CELLS).opsPerSecond() >= medians.get(REDIS_KIT_UNSHARDED)
					.opsPerSecond()) {
					overtakesAt = size;
				}
				bySize.put(Long.toString(size), results);
			}
		}
		finally {
			for (GeoIndex index : List.of(unsharded, cells)) {
				keyTools.deleteByPattern(
						KeyScanOptions.matching(KeyPatterns.escape(naming.key("geo", index.name())) + "*"),
						DeleteOptions.defaults());
			}
		}
		System.out.println("curve.geo the cell-sharded index "
				+ ((overtakesAt != null) ? "is at least as fast as the unsharded one from " + overtakesAt + " members"
						: "stays behind the unsharded one up to " + sizes.get(sizes.size() - 1) + " members"));
		CurveChart.write(context.options().outputDirectory().resolve(filePrefix + "-geo-throughput.png"),
				"Geo: nearest " + GeoBenchmark.LIMIT + " within " + GeoBenchmark.RADIUS_METERS
						+ " m as the index grows (median round)",
				"members in the index", "searches/s", sizes, throughput);
		CurveChart.write(context.options().outputDirectory().resolve(filePrefix + "-geo-p99.png"),
				"Geo: p99 of a search as the index grows (median round)", "members in the index", "p99 (ms)", sizes,
				p99);
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("search", "nearest " + GeoBenchmark.LIMIT + " within " + GeoBenchmark.RADIUS_METERS
				+ " m, with distances, without positions, of a random point of a " + GeoBenchmark.AREA_KM
				+ " km square; cells of precision "
				+ GeoBenchmark.PRECISION + "; Redisson on the unsharded index's set");
		json.put("bySize", bySize);
		json.put("cellsAtLeastAsFastFrom", overtakesAt);
		return json;
	}

	/** Adds members {@code from} to {@code to}, at the next random positions, to both indexes. */
	private static long load(BenchmarkContext context, GeoIndex unsharded, GeoIndex cells, SplittableRandom positions,
			long from, long to) {
		long start = System.nanoTime();
		for (long chunk = from; chunk < to; chunk += LOAD_CHUNK) {
			Map<String, GeoPoint> batch = new HashMap<>();
			for (long i = chunk; i < Math.min(to, chunk + LOAD_CHUNK); i++) {
				batch.put("bike-" + i, GeoBenchmark.randomPoint(positions, GeoBenchmark.AREA_KM));
			}
			CompletableFuture.allOf(unsharded.putAllAsync(batch).toCompletableFuture(),
					cells.putAllAsync(batch).toCompletableFuture()).join();
		}
		context.progress("curve.geo: loaded members " + from + " to " + to + " into both indexes in "
				+ Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms");
		return to;
	}

	/** How many members a search finds on average: fewer than the limit while the index is sparse. */
	private static double meanFound(GeoBenchmark.Library library) throws Exception {
		SplittableRandom random = new SplittableRandom(11);
		long found = 0;
		for (int i = 0; i < 100; i++) {
			found += library.search(GeoBenchmark.randomPoint(random, GeoBenchmark.AREA_KM - 2)).size();
		}
		return found / 100.0;
	}

}
