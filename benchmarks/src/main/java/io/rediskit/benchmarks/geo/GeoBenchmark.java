package io.rediskit.benchmarks.geo;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;

import io.lettuce.core.GeoArgs;
import io.lettuce.core.GeoSearch;
import io.lettuce.core.GeoWithin;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.rediskit.benchmarks.Benchmark;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.ConcurrentLoad;
import io.rediskit.benchmarks.CpuMeter;
import io.rediskit.benchmarks.JsonWriter;
import io.rediskit.benchmarks.LatencySample;
import io.rediskit.benchmarks.MedianRound;
import io.rediskit.benchmarks.Spread;
import io.rediskit.geo.GeoIndex;
import io.rediskit.geo.GeoIndexRegistry;
import io.rediskit.geo.GeoIndexSpec;
import io.rediskit.geo.GeoMatch;
import io.rediskit.geo.GeoPoint;
import io.rediskit.geo.GeoQuery;
import io.rediskit.geo.GeoUnit;
import io.rediskit.keys.DeleteOptions;
import io.rediskit.keys.KeyPatterns;
import io.rediskit.keys.KeyScanOptions;
import io.rediskit.keys.KeyTools;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import org.redisson.api.RGeo;
import org.redisson.api.geo.GeoEntry;
import org.redisson.api.geo.GeoOrder;
import org.redisson.api.geo.GeoSearchArgs;
import org.redisson.client.codec.StringCodec;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@code geo}: "bikes near me" searches per second and their p99 latency, on the run's threads, over
 * {@value #DEFAULT_MEMBERS} members (or {@code -Drediskit.benchmark.geo.members=}) spread uniformly over a square
 * of {@value #AREA_KM} km around Paris. Each search asks for the {@value #LIMIT} members nearest a random point
 * of the inner square within {@value #RADIUS_METERS} m, with their distance and without their position, the
 * work of Redisson's {@code searchWithDistance} ({@code GEORADIUS_RO ... WITHDIST COUNT ASC}, no coordinates), so
 * that all four do the same work. Side by side in one run:
 * <ul>
 * <li>{@code redis-kit-unsharded}: a {@link GeoIndex} on one geo set ({@code nearby} of a query
 * {@link GeoQuery#withoutPositions() without positions}: one plain {@code GEOSEARCH}, members never expire);</li>
 * <li>{@code redis-kit-cells}: a {@link GeoIndex} sharded by geohash cell of precision {@value #PRECISION} (cells
 * of about 3.2 km by 2.3 km at Paris' latitude: a search reads 1 to 4 of them, one pipelined {@code GEOSEARCH}
 * each, merged on the client);</li>
 * <li>{@code redisson}: Redisson's {@link RGeo} on one set, {@code searchWithDistance};</li>
 * <li>{@code floor}: the bare driver (Lettuce, its own connection) sending the same {@code GEOSEARCH ...
 * WITHDIST COUNT ASC} to redis-kit's unsharded set: what any client pays for the search itself.</li>
 * </ul>
 * Before measuring, a few searches must give the same members on all four, or an anomaly is reported. Each
 * round runs every library, in a rotating order; the median round is reported. Writes {@code geo.json}.
 */
public final class GeoBenchmark implements Benchmark {

	static final int DEFAULT_MEMBERS = 1_000_000;

	static final String MEMBERS_PROPERTY = "rediskit.benchmark.geo.members";

	static final int AREA_KM = 100;

	static final int RADIUS_METERS = 500;

	static final int LIMIT = 20;

	static final int PRECISION = 26;

	private static final GeoPoint CENTER = GeoPoint.ofLatLon(48.8566, 2.3522);

	/** Degrees of latitude per km on Redis's sphere. */
	private static final double LAT_PER_KM = 180 / (Math.PI * 6372.797560856);

	private static final int LOAD_BATCH = 10_000;

	@Override
	public String name() {
		return "geo";
	}

	@Override
	public void run(BenchmarkContext context) throws Exception {
		int members = Integer.getInteger(MEMBERS_PROPERTY, DEFAULT_MEMBERS);
		if (members < LIMIT) {
			throw new IllegalArgumentException(MEMBERS_PROPERTY + " must be at least " + LIMIT + ", was " + members);
		}
		KeyNaming naming = new KeyNaming("bench:");
		GeoIndexRegistry registry = new GeoIndexRegistry(ScriptExecutor.of(context.connectionFactory()),
				CommandExecutor.of(context.connectionFactory()), naming);
		String run = Long.toString(System.nanoTime(), 36);
		GeoIndex unsharded = registry.create("flat-" + run, GeoIndexSpec.unsharded());
		GeoIndex cells = registry.create("cells-" + run, GeoIndexSpec.byCell(PRECISION));
		RGeo<String> redisson = context.redisson().getGeo("bench:redisson-geo:" + run, StringCodec.INSTANCE);
		byte[] flatKey = naming.key("geo", unsharded.name()).getBytes(StandardCharsets.UTF_8);
		KeyTools keyTools = new KeyTools((LettuceConnectionFactory) context.connectionFactory(), List.of());
		try (StatefulRedisConnection<byte[], byte[]> floorConnection = context.connectLettuce()) {
			load(context, members, unsharded, cells, redisson);
			List<Library> libraries = libraries(unsharded, cells, redisson, floorConnection.sync(), flatKey);
			checkSameAnswers(context, libraries);
			Map<String, List<Round>> rounds = new LinkedHashMap<>();
			for (int round = 0; round < context.options().rounds(); round++) {
				for (int i = 0; i < libraries.size(); i++) {
					Library library = libraries.get((round + i) % libraries.size());
					rounds.computeIfAbsent(library.name(), (name) -> new ArrayList<>()).add(measure(context, library));
				}
			}
			write(context, members, libraries, rounds);
		}
		finally {
			redisson.delete();
			for (GeoIndex index : List.of(unsharded, cells)) {
				keyTools.deleteByPattern(KeyScanOptions.matching(KeyPatterns.escape(naming.key("geo", index.name())) + "*"),
						DeleteOptions.defaults());
			}
		}
	}

	/**
	 * The four ways to search, in the order they are reported.
	 * @param unsharded redis-kit's index on one set
	 * @param cells redis-kit's index sharded by cell, holding the same members
	 * @param redisson Redisson's set, holding the same members
	 * @param floor the bare driver's connection
	 * @param flatKey the key of the unsharded index's set, which the floor searches
	 * @return the libraries
	 */
	static List<Library> libraries(GeoIndex unsharded, GeoIndex cells, RGeo<String> redisson,
			RedisCommands<byte[], byte[]> floor, byte[] flatKey) {
		return List.of(new Library("redis-kit-unsharded", (point) -> members(unsharded.nearby(query(point)))),
				new Library("redis-kit-cells", (point) -> members(cells.nearby(query(point)))),
				new Library("redisson", (point) -> List.copyOf(redisson.searchWithDistance(
						GeoSearchArgs.from(point.longitude(), point.latitude())
							.radius(RADIUS_METERS, org.redisson.api.geo.GeoUnit.METERS)
							.order(GeoOrder.ASC)
							.count(LIMIT))
					.keySet())),
				new Library("floor", (point) -> floorSearch(floor, flatKey, point)));
	}

	/** Puts the same members, at the same random positions, into the three sets. */
	private static void load(BenchmarkContext context, int members, GeoIndex unsharded, GeoIndex cells,
			RGeo<String> redisson) {
		SplittableRandom random = new SplittableRandom(42);
		long start = System.nanoTime();
		for (int from = 0; from < members; from += LOAD_BATCH) {
			Map<String, GeoPoint> batch = new HashMap<>();
			List<GeoEntry> entries = new ArrayList<>();
			for (int i = from; i < Math.min(members, from + LOAD_BATCH); i++) {
				GeoPoint point = randomPoint(random, AREA_KM);
				batch.put("bike-" + i, point);
				entries.add(new GeoEntry(point.longitude(), point.latitude(), "bike-" + i));
			}
			unsharded.putAll(batch);
			cells.putAll(batch);
			redisson.add(entries.toArray(GeoEntry[]::new));
			if ((from / LOAD_BATCH) % 20 == 19) {
				context.progress("geo: loaded " + (from + LOAD_BATCH) + " of " + members + " members");
			}
		}
		context.progress("geo: loaded " + members + " members into each set in "
				+ Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms");
	}

	/** A uniform point of the square of {@code sideKm} around the center (uniform in degrees, near enough). */
	static GeoPoint randomPoint(SplittableRandom random, double sideKm) {
		double latitude = CENTER.latitude() + (random.nextDouble() - 0.5) * sideKm * LAT_PER_KM;
		double longitude = CENTER.longitude()
				+ (random.nextDouble() - 0.5) * sideKm * LAT_PER_KM / Math.cos(Math.toRadians(CENTER.latitude()));
		return GeoPoint.ofLatLon(latitude, longitude);
	}

	/** Which members and how far, no positions: what Redisson's {@code searchWithDistance} asks for. */
	static GeoQuery query(GeoPoint point) {
		return GeoQuery.around(point).withinRadius(RADIUS_METERS, GeoUnit.METERS).limit(LIMIT).withoutPositions();
	}

	static List<String> members(List<GeoMatch> matches) {
		return matches.stream().map(GeoMatch::member).toList();
	}

	static List<String> floorSearch(RedisCommands<byte[], byte[]> floor, byte[] key, GeoPoint point) {
		List<GeoWithin<byte[]>> found = floor.geosearch(key, GeoSearch.fromCoordinates(point.longitude(),
				point.latitude()), GeoSearch.byRadius(RADIUS_METERS, GeoArgs.Unit.m),
				new GeoArgs().withDistance().withCount(LIMIT).asc());
		return found.stream().map((within) -> new String(within.getMember(), StandardCharsets.UTF_8)).toList();
	}

	/** Every library must find the same members (in the same order, but for ties at equal distance). */
	static void checkSameAnswers(BenchmarkContext context, List<Library> libraries) throws Exception {
		SplittableRandom random = new SplittableRandom(7);
		for (int i = 0; i < 20; i++) {
			GeoPoint point = randomPoint(random, AREA_KM - 2);
			List<String> expected = libraries.get(0).search(point).stream().sorted().toList();
			for (Library library : libraries.subList(1, libraries.size())) {
				List<String> found = library.search(point).stream().sorted().toList();
				if (!found.equals(expected)) {
					context.reportAnomaly("geo.nearby " + library.name() + " found " + found + " around " + point
							+ " where " + libraries.get(0).name() + " found " + expected, null);
				}
			}
		}
	}

	private static String cpuPerSearch(CpuMeter.Cost cost) {
		return String.format(Locale.ROOT, "cpu-us/op=%.1f+%.1f", cost.clientMicros(), cost.serverMicros());
	}

	static Round measure(BenchmarkContext context, Library library) throws Exception {
		LatencySample latencies = new LatencySample(1 << 20);
		ConcurrentLoad load = context.load("geo.nearby " + library.name());
		ConcurrentLoad.Outcome outcome = load.run((thread) -> {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			// The inner square: a search never reaches the edge of the data, so every one finds its LIMIT.
			GeoPoint point = GeoPoint.ofLatLon(
					CENTER.latitude() + (random.nextDouble() - 0.5) * (AREA_KM - 2) * LAT_PER_KM,
					CENTER.longitude() + (random.nextDouble() - 0.5) * (AREA_KM - 2) * LAT_PER_KM
							/ Math.cos(Math.toRadians(CENTER.latitude())));
			long start = System.nanoTime();
			library.search(point);
			if (load.isMeasuring()) {
				latencies.record(System.nanoTime() - start);
			}
		});
		double[] micros = latencies.percentilesMicros(50, 99);
		return new Round(outcome.opsPerSecond(), micros[0], micros[1], outcome.errors());
	}

	private void write(BenchmarkContext context, int members, List<Library> libraries, Map<String, List<Round>> rounds)
			throws Exception {
		Map<String, Object> results = new LinkedHashMap<>();
		Map<String, Round> medians = new LinkedHashMap<>();
		Map<String, Spread> spreads = new LinkedHashMap<>();
		for (Library library : libraries) {
			MedianRound<Round> measured = MedianRound.of(context, "geo.nearby " + library.name(),
					rounds.get(library.name()), Round::opsPerSecond);
			Round median = measured.round();
			medians.put(library.name(), median);
			spreads.put(library.name(), measured.spread());
			Map<String, Object> result = new LinkedHashMap<>();
			result.put("searchesPerSecond", Math.round(median.opsPerSecond()));
			result.put("p50Micros", Math.round(median.p50Micros()));
			result.put("p99Micros", Math.round(median.p99Micros()));
			result.put("searchesPerSecondByRound",
					rounds.get(library.name()).stream().map((round) -> Math.round(round.opsPerSecond())).toList());
			result.put("errors", rounds.get(library.name()).stream().mapToLong(Round::errors).sum());
			measured.spread().addTo(result);
			results.put(library.name(), result);
		}
		double redisson = medians.get("redisson").opsPerSecond();
		double floor = medians.get("floor").opsPerSecond();
		for (Map.Entry<String, Round> entry : medians.entrySet()) {
			Round round = entry.getValue();
			System.out.printf("geo.nearby %-20s %,10.0f searches/s  p50 %,7.0f us  p99 %,7.0f us  %.2fx redisson  "
					+ "%.0f%% of floor  %s  %s%n", entry.getKey(), round.opsPerSecond(), round.p50Micros(), round.p99Micros(),
					round.opsPerSecond() / redisson, 100 * round.opsPerSecond() / floor,
					spreads.get(entry.getKey()).token(), cpuPerSearch(context.cpu("geo.nearby").median(entry.getKey())));
		}
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("benchmark", name());
		json.put("timestamp", Instant.now().toString());
		json.put("environment", context.environment());
		json.put("members", members);
		json.put("search", "nearest " + LIMIT + " within " + RADIUS_METERS + " m, with distances, without positions, of a "
				+ "random point of a " + AREA_KM + " km square; cells of precision " + PRECISION);
		json.put("results", results);
		Files.createDirectories(context.options().outputDirectory());
		JsonWriter.write(context.options().outputDirectory().resolve("geo.json"), json);
	}

	/** One way to search, by name. */
	record Library(String name, Search search) {

		List<String> search(GeoPoint point) throws Exception {
			return this.search.around(point);
		}

	}

	@FunctionalInterface
	interface Search {

		List<String> around(GeoPoint point) throws Exception;

	}

	/** What one library did in one round. */
	record Round(double opsPerSecond, double p50Micros, double p99Micros, long errors) {
	}

}
