package io.rediskit.benchmarks.memory;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntFunction;

import io.lettuce.core.api.StatefulRedisConnection;
import io.rediskit.benchmarks.Benchmark;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.JsonWriter;
import io.rediskit.benchmarks.OpsChart;
import io.rediskit.bloom.BloomFilter;
import io.rediskit.bloom.BloomFilterListener;
import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.bloom.BloomFilterSpec;
import io.rediskit.geo.GeoIndex;
import io.rediskit.geo.GeoIndexRegistry;
import io.rediskit.geo.GeoIndexSpec;
import io.rediskit.geo.GeoPoint;
import io.rediskit.queue.QueueEntry;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueSpec;
import io.rediskit.queue.RedisQueue;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimitListener;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimiter;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import org.redisson.api.RBloomFilter;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RFuture;
import org.redisson.api.RGeo;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.geo.GeoEntry;
import org.redisson.client.codec.StringCodec;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code memory}: what each primitive costs the server, in bytes per unit of work, so that a user can size
 * Redis. Each figure is the growth of the server's {@code used_memory} (the allocator's count, without
 * fragmentation) less the clients' buffers over a scenario divided by its units, or for rate limiters and Bloom
 * filters the exact {@code MEMORY USAGE} of their keys, with redis-kit and Redisson filled with the same work:
 * <ul>
 * <li>rate limiters: bytes per active key for each algorithm at limits 10, 1,000 and 100,000 permits per hour:
 * the sliding log and Redisson's {@code RRateLimiter} (both keep one entry per admitted call) with each key used
 * up to its limit one permit per call; the other algorithms, whose state has a fixed size whatever the count,
 * over {@value #FIXED_STATE_KEYS} keys of up to 10 calls each;</li>
 * <li>queue: bytes per waiting message (a 100-byte payload, due in an hour), redis-kit's delay queue and
 * Redisson's {@code RDelayedQueue} (string codec, so both store the same payload bytes);</li>
 * <li>Bloom: bytes per expected item at 1% and 0.1%, the filter filled to its expected insertions, and
 * Redisson's {@code RBloomFilter};</li>
 * <li>geo: bytes per member, unsharded and sharded by cell, and Redisson's {@code RGeo}.</li>
 * </ul>
 * Memory does not depend on the machine being quiet: these figures repeat to a few bytes. Writes
 * {@code memory.json} and {@code memory-*.png}. The rate-limiter and Bloom sections take their sizes as
 * arguments ({@link #rateLimiters}, {@link #bloom}): the {@code curves} benchmark runs them too, at the sizes it
 * is given, so that both count bytes the same way.
 */
public final class MemoryBenchmark implements Benchmark {

	private static final String REDIS_KIT = "redis-kit";

	private static final String REDISSON = "redisson";

	private static final Duration PERIOD = Duration.ofHours(1);

	private static final int IN_FLIGHT = 2_000;

	/** The limits measured by {@code memory}. */
	private static final List<Long> LIMITS = List.of(10L, 1_000L, 100_000L);

	/** Admitted calls a log limiter is measured over per limit, spread over as many keys as that takes. */
	private static final long LOG_CALLS = 100_000;

	/** Most keys a log limiter is measured over (at small limits). */
	private static final int MAX_LOG_KEYS = 2_000;

	/** Keys over which the algorithms whose state does not grow with the count are measured. */
	private static final int FIXED_STATE_KEYS = 2_000;

	private static final int MESSAGES = 100_000;

	private static final String PAYLOAD = "x".repeat(100);

	private static final int BLOOM_ITEMS = 1_000_000;

	private static final int GEO_MEMBERS = 200_000;

	private static final String PREFIX = "bench:mem:";

	@Override
	public String name() {
		return "memory";
	}

	@Override
	public void run(BenchmarkContext context) throws Exception {
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("environment", context.environment());
		try (StatefulRedisConnection<byte[], byte[]> info = context.connectLettuce()) {
			ServerMemory meter = new ServerMemory(context, info);
			json.put("rateLimiterBytesPerKey", rateLimiters(context, meter, LIMITS, "memory"));
			json.put("queueBytesPerWaitingMessage", queue(context, meter));
			json.put("bloomBytesPerItem", bloom(context, meter, BLOOM_ITEMS, "memory"));
			json.put("geoBytesPerMember", geo(context, meter));
		}
		Files.createDirectories(context.options().outputDirectory());
		JsonWriter.write(context.options().outputDirectory().resolve("memory.json"), json);
	}

	/**
	 * Bytes per active key of every algorithm at each limit (permits per hour), and of Redisson's
	 * {@code RRateLimiter}: the sliding log and Redisson's limiter (which keep one entry per admitted call) with
	 * each key used up to its limit, one permit per call, over as many keys as make about {@value #LOG_CALLS}
	 * calls (at least 2, at most {@value #MAX_LOG_KEYS}); the other algorithms over {@value #FIXED_STATE_KEYS}
	 * keys of up to 10 calls each. Every call must be admitted, and each log must hold one entry per admitted
	 * call ({@code ZCARD}): both are counted and reported, and a shortfall is an anomaly.
	 * @param context the run
	 * @param meter the server's memory
	 * @param limits the limits, ascending
	 * @param filePrefix the charts go to {@code <filePrefix>-ratelimit.png} and {@code <filePrefix>-ratelimit-log.png}
	 * @return bytes per key by limit and library, with the log entries and admitted calls
	 * @throws Exception if the server cannot be reached or a chart cannot be written
	 */
	public static Map<String, Object> rateLimiters(BenchmarkContext context, ServerMemory meter, List<Long> limits,
			String filePrefix) throws Exception {
		RateLimiterRegistry registry = new RateLimiterRegistry(context.connectionFactory(), new KeyNaming(PREFIX),
				RateLimitListener.NONE);
		Map<String, Object> results = new LinkedHashMap<>();
		List<String> scenarios = new ArrayList<>();
		Map<String, List<Double>> fixedState = new LinkedHashMap<>();
		Map<String, List<Double>> logged = new LinkedHashMap<>();
		for (long limit : limits) {
			int keys = (int) Math.max(2, Math.min(MAX_LOG_KEYS, LOG_CALLS / limit));
			String scenario = "limit " + limit;
			scenarios.add(scenario);
			Map<String, Double> perKey = new LinkedHashMap<>();
			Map<String, Object> logs = new LinkedHashMap<>();
			for (RateLimitAlgorithm algorithm : RateLimitAlgorithm.values()) {
				RateLimiter limiter = registry.create("limit-" + algorithm.name().toLowerCase() + "-" + limit,
						RateLimitSpec.of(algorithm, limit, PERIOD));
				// Only the sliding log grows with the calls admitted; the others keep a fixed-size state, measured
				// over many keys so that the figure is not lost in the server's own noise.
				boolean log = algorithm == RateLimitAlgorithm.SLIDING_LOG;
				int measuredKeys = log ? keys : FIXED_STATE_KEYS;
				long calls = log ? limit : Math.min(limit, 10);
				long admitted = fill(measuredKeys, calls, (call) -> limiter.tryAcquireAsync(key(call % measuredKeys))
					.thenApply(RateLimitDecision::allowed)
					.toCompletableFuture());
				String library = REDIS_KIT + " " + algorithm.name();
				String pattern = PREFIX + "*" + limiter.name() + "*";
				perKey.put(library, meter.keyBytes(pattern) / (double) measuredKeys);
				if (log) {
					logs.put(library, logEntries(context, library, measuredKeys * calls, admitted,
							meter.sortedSetEntries(pattern)));
				}
			}
			RRateLimiter[] redisson = new RRateLimiter[keys];
			for (int k = 0; k < keys; k++) {
				redisson[k] = context.redisson().getRateLimiter(PREFIX + "redisson:limit-" + limit + ":" + key(k));
				redisson[k].trySetRate(RateType.OVERALL, limit, PERIOD);
			}
			long admitted = fill(keys, limit, (call) -> redisson[call % keys].tryAcquireAsync().toCompletableFuture());
			String redissonPattern = "*" + PREFIX + "redisson:limit-" + limit + ":*";
			perKey.put(REDISSON, meter.keyBytes(redissonPattern) / (double) keys);
			logs.put(REDISSON, logEntries(context, REDISSON, keys * limit, admitted,
					meter.sortedSetEntries(redissonPattern)));
			Map<String, Object> result = new LinkedHashMap<>(perKey);
			result.put("logs", logs);
			results.put(scenario, result);
			perKey.forEach((library, value) -> {
				// The logs grow with the count: drawn per admitted call, beside the fixed-size states per key.
				boolean log = library.equals(REDISSON) || library.endsWith(RateLimitAlgorithm.SLIDING_LOG.name());
				(log ? logged : fixedState).computeIfAbsent(library, (name) -> new ArrayList<>())
					.add(log ? value / limit : value);
				System.out.printf("%s.ratelimit limit %-7d %-26s %,12.0f bytes/key%s%n", filePrefix, limit, library,
						value, log ? String.format(" (%,.0f per admitted call)", value / limit) : "");
			});
			meter.clean(PREFIX);
		}
		OpsChart.write(context.options().outputDirectory().resolve(filePrefix + "-ratelimit.png"),
				"Rate limiters with a fixed-size state: Redis bytes per key", "bytes per key", scenarios,
				fixedState);
		OpsChart.write(context.options().outputDirectory().resolve(filePrefix + "-ratelimit-log.png"),
				"Rate limiters that log each call: Redis bytes per admitted call", "bytes per admitted call",
				scenarios, logged);
		return results;
	}

	/**
	 * What a log limiter holds after its fill: every call should have been admitted and left one entry. Less means
	 * the bytes per call above are over fewer calls than they claim: an anomaly.
	 */
	private static Map<String, Object> logEntries(BenchmarkContext context, String library, long calls, long admitted,
			long entries) {
		if (admitted != calls || entries != admitted) {
			context.reportAnomaly("memory.ratelimit " + library + ": " + calls + " calls, " + admitted + " admitted, "
					+ entries + " log entries; expected all admitted and one entry each", null);
		}
		Map<String, Object> log = new LinkedHashMap<>();
		log.put("calls", calls);
		log.put("admitted", admitted);
		log.put("entries", entries);
		return log;
	}

	/**
	 * Sends {@code keys * limit} calls, {@value #IN_FLIGHT} at a time, and waits for every reply.
	 * @return how many were admitted
	 */
	private static long fill(int keys, long limit, IntFunction<CompletableFuture<Boolean>> call) {
		long calls = keys * limit;
		long admitted = 0;
		List<CompletableFuture<Boolean>> window = new ArrayList<>(IN_FLIGHT);
		for (int i = 0; i < calls; i++) {
			window.add(call.apply(i));
			if (window.size() == IN_FLIGHT || i == calls - 1) {
				for (CompletableFuture<Boolean> reply : window) {
					admitted += Boolean.TRUE.equals(reply.join()) ? 1 : 0;
				}
				window.clear();
			}
		}
		return admitted;
	}

	private Map<String, Object> queue(BenchmarkContext context, ServerMemory meter) throws Exception {
		QueueRegistry registry = new QueueRegistry(ScriptExecutor.of(context.connectionFactory()),
				context.connectionFactory(), new KeyNaming(PREFIX), JsonMapper.builder().build(), List.of(),
				(name) -> null);
		RedisQueue<String> queue = registry.create("memory-" + System.nanoTime(), QueueSpec.defaults(), String.class);
		Map<String, Double> perMessage = new LinkedHashMap<>();
		perMessage.put(REDIS_KIT, meter.perUnit(MESSAGES, () -> {
			List<CompletableFuture<?>> batches = new ArrayList<>();
			for (int i = 0; i < MESSAGES; i += 1000) {
				List<QueueEntry<String>> entries = new ArrayList<>(1000);
				for (int j = i; j < Math.min(MESSAGES, i + 1000); j++) {
					entries.add(QueueEntry.of(PAYLOAD).withDelay(PERIOD));
				}
				batches.add(queue.enqueueAllAsync(entries).toCompletableFuture());
			}
			CompletableFuture.allOf(batches.toArray(CompletableFuture<?>[]::new)).join();
		}));
		queue.purge();
		RDelayedQueue<String> delayed = context.redisson()
			.getDelayedQueue(context.redisson().getBlockingQueue(PREFIX + "redisson:queue", StringCodec.INSTANCE));
		perMessage.put(REDISSON, meter.perUnit(MESSAGES, () -> {
			List<RFuture<Void>> offers = new ArrayList<>(IN_FLIGHT);
			for (int i = 0; i < MESSAGES; i++) {
				offers.add(delayed.offerAsync(PAYLOAD, 1, TimeUnit.HOURS));
				if (offers.size() == IN_FLIGHT) {
					offers.forEach((offer) -> offer.toCompletableFuture().join());
					offers.clear();
				}
			}
			offers.forEach((offer) -> offer.toCompletableFuture().join());
		}));
		delayed.destroy();
		meter.clean(PREFIX);
		perMessage.forEach((library, value) -> System.out.printf("memory.queue %-10s %,8.0f bytes/waiting message "
				+ "(payload %d bytes)%n", library, value, PAYLOAD.length()));
		OpsChart.write(context.options().outputDirectory().resolve("memory-queue.png"),
				"Delay queue: Redis bytes per waiting message (100-byte payload)", "bytes per message",
				List.of("waiting message"), toSeries(perMessage));
		return Map.of("payloadBytes", PAYLOAD.length(), "bytesPerMessage", perMessage);
	}

	/**
	 * Bytes per expected item of a filter sized for {@code items} at 1% and 0.1% and filled with them, redis-kit's
	 * and Redisson's {@code RBloomFilter}.
	 * @param context the run
	 * @param meter the server's memory
	 * @param items the items each filter is sized for and filled with
	 * @param filePrefix the chart goes to {@code <filePrefix>-bloom.png}
	 * @return bytes per item by rate and library
	 * @throws Exception if the server cannot be reached or the chart cannot be written
	 */
	public static Map<String, Object> bloom(BenchmarkContext context, ServerMemory meter, long items, String filePrefix)
			throws Exception {
		BloomFilterRegistry registry = new BloomFilterRegistry(context.connectionFactory(), new KeyNaming(PREFIX),
				BloomFilterListener.NONE);
		Map<String, Object> results = new LinkedHashMap<>();
		List<String> scenarios = new ArrayList<>();
		Map<String, List<Double>> series = new LinkedHashMap<>();
		for (double rate : new double[] { 0.01, 0.001 }) {
			String scenario = "fp " + (rate * 100) + "%";
			scenarios.add(scenario);
			String kitName = "bloom-" + System.nanoTime();
			BloomFilter kit = registry.create(kitName, BloomFilterSpec.of(items, rate));
			Map<String, Double> perItem = new LinkedHashMap<>();
			addItems(items, kit::addAll);
			perItem.put(REDIS_KIT, meter.keyBytes(PREFIX + "*" + kitName + "*") / (double) items);
			String redissonName = PREFIX + "redisson:bloom-" + System.nanoTime();
			RBloomFilter<String> redisson = context.redisson().getBloomFilter(redissonName, StringCodec.INSTANCE);
			redisson.tryInit(items, rate);
			addItems(items, redisson::add);
			perItem.put(REDISSON, meter.keyBytes("*" + redissonName + "*") / (double) items);
			kit.delete();
			redisson.delete();
			results.put(scenario, perItem);
			perItem.forEach((library, value) -> {
				series.computeIfAbsent(library, (name) -> new ArrayList<>()).add(value);
				System.out.printf(filePrefix + ".bloom %-8s %-10s %6.2f bytes/item%n", scenario, library, value);
			});
		}
		meter.clean(PREFIX);
		OpsChart.write(context.options().outputDirectory().resolve(filePrefix + "-bloom.png"),
				"Bloom filters: Redis bytes per expected item", "bytes per item", scenarios, series);
		return results;
	}

	/** Adds {@code count} distinct items, 10,000 per call. */
	private static void addItems(long count, Consumer<List<String>> add) {
		for (long i = 0; i < count; i += 10_000) {
			List<String> items = new ArrayList<>(10_000);
			for (long j = i; j < Math.min(count, i + 10_000); j++) {
				items.add("item-" + j);
			}
			add.accept(items);
		}
	}

	private Map<String, Object> geo(BenchmarkContext context, ServerMemory meter) throws Exception {
		GeoIndexRegistry registry = new GeoIndexRegistry(ScriptExecutor.of(context.connectionFactory()),
				CommandExecutor.of(context.connectionFactory()), new KeyNaming(PREFIX));
		SplittableRandom random = new SplittableRandom(7);
		Map<String, GeoPoint> members = new LinkedHashMap<>();
		for (int i = 0; i < GEO_MEMBERS; i++) {
			members.put("bike-" + i, GeoPoint.ofLatLon(48.4 + random.nextDouble() * 0.9, 1.7 + random.nextDouble() * 1.3));
		}
		Map<String, Double> perMember = new LinkedHashMap<>();
		GeoIndex unsharded = registry.create("geo-flat-" + System.nanoTime(), GeoIndexSpec.unsharded());
		perMember.put(REDIS_KIT + " unsharded", meter.perUnit(GEO_MEMBERS, () -> putAll(unsharded, members)));
		GeoIndex cells = registry.create("geo-cells-" + System.nanoTime(), GeoIndexSpec.byCell(26));
		perMember.put(REDIS_KIT + " cells", meter.perUnit(GEO_MEMBERS, () -> putAll(cells, members)));
		GeoIndex expiring = registry.create("geo-expiring-" + System.nanoTime(),
				GeoIndexSpec.byCell(26).withMemberTtl(PERIOD));
		perMember.put(REDIS_KIT + " cells+expiry", meter.perUnit(GEO_MEMBERS, () -> putAll(expiring, members)));
		RGeo<String> redisson = context.redisson().getGeo(PREFIX + "redisson:geo", StringCodec.INSTANCE);
		perMember.put(REDISSON, meter.perUnit(GEO_MEMBERS, () -> {
			List<GeoEntry> entries = new ArrayList<>();
			members.forEach((member, point) -> entries.add(new GeoEntry(point.longitude(), point.latitude(), member)));
			for (int i = 0; i < entries.size(); i += 10_000) {
				redisson.add(entries.subList(i, Math.min(entries.size(), i + 10_000)).toArray(GeoEntry[]::new));
			}
		}));
		meter.clean(PREFIX);
		perMember.forEach((library, value) -> System.out.printf("memory.geo %-24s %6.1f bytes/member%n", library,
				value));
		OpsChart.write(context.options().outputDirectory().resolve("memory-geo.png"),
				"Geo indexes: Redis bytes per member", "bytes per member", List.of("member"), toSeries(perMember));
		return Map.of("members", GEO_MEMBERS, "bytesPerMember", perMember);
	}

	private static void putAll(GeoIndex index, Map<String, GeoPoint> members) {
		Map<String, GeoPoint> batch = new HashMap<>();
		for (Map.Entry<String, GeoPoint> member : members.entrySet()) {
			batch.put(member.getKey(), member.getValue());
			if (batch.size() == 10_000) {
				index.putAll(batch);
				batch.clear();
			}
		}
		index.putAll(batch);
	}

	private static Map<String, List<Double>> toSeries(Map<String, Double> values) {
		Map<String, List<Double>> series = new LinkedHashMap<>();
		values.forEach((library, value) -> series.put(library, List.of(value)));
		return series;
	}

	private static String key(int index) {
		return "user-" + index;
	}

}
