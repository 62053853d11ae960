package io.rediskit.benchmarks.memory;

import java.nio.charset.StandardCharsets;
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

import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
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
import io.rediskit.keys.DeleteOptions;
import io.rediskit.keys.KeyScanOptions;
import io.rediskit.keys.KeyTools;
import io.rediskit.queue.QueueEntry;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueSpec;
import io.rediskit.queue.RedisQueue;
import io.rediskit.ratelimit.RateLimitAlgorithm;
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

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

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
 * {@code memory.json} and {@code memory-*.png}.
 */
public final class MemoryBenchmark implements Benchmark {

	private static final String REDIS_KIT = "redis-kit";

	private static final String REDISSON = "redisson";

	private static final Duration PERIOD = Duration.ofHours(1);

	private static final int IN_FLIGHT = 2_000;

	/** Limits and how many keys each is measured over (about 10^5 admitted calls per scenario at most). */
	private static final long[][] LIMITS = { { 10, 2_000 }, { 1_000, 100 }, { 100_000, 2 } };

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
			Meter meter = new Meter(context, info);
			json.put("rateLimiterBytesPerKey", rateLimiters(context, meter));
			json.put("queueBytesPerWaitingMessage", queue(context, meter));
			json.put("bloomBytesPerItem", bloom(context, meter));
			json.put("geoBytesPerMember", geo(context, meter));
		}
		Files.createDirectories(context.options().outputDirectory());
		JsonWriter.write(context.options().outputDirectory().resolve("memory.json"), json);
	}

	private Map<String, Object> rateLimiters(BenchmarkContext context, Meter meter) throws Exception {
		RateLimiterRegistry registry = new RateLimiterRegistry(context.connectionFactory(), new KeyNaming(PREFIX),
				RateLimitListener.NONE);
		Map<String, Object> results = new LinkedHashMap<>();
		List<String> scenarios = new ArrayList<>();
		Map<String, List<Double>> fixedState = new LinkedHashMap<>();
		Map<String, List<Double>> logged = new LinkedHashMap<>();
		for (long[] limitAndKeys : LIMITS) {
			long limit = limitAndKeys[0];
			int keys = (int) limitAndKeys[1];
			String scenario = "limit " + limit;
			scenarios.add(scenario);
			Map<String, Double> perKey = new LinkedHashMap<>();
			for (RateLimitAlgorithm algorithm : RateLimitAlgorithm.values()) {
				RateLimiter limiter = registry.create("limit-" + algorithm.name().toLowerCase() + "-" + limit,
						RateLimitSpec.of(algorithm, limit, PERIOD));
				// Only the sliding log grows with the calls admitted; the others keep a fixed-size state, measured
				// over many keys so that the figure is not lost in the server's own noise.
				boolean log = algorithm == RateLimitAlgorithm.SLIDING_LOG;
				int measuredKeys = log ? keys : FIXED_STATE_KEYS;
				long calls = log ? limit : Math.min(limit, 10);
				fill(measuredKeys, calls,
						(call) -> limiter.tryAcquireAsync(key(call % measuredKeys)).toCompletableFuture());
				perKey.put(REDIS_KIT + " " + algorithm.name(),
						meter.keyBytes(PREFIX + "*" + limiter.name() + "*") / (double) measuredKeys);
			}
			RRateLimiter[] redisson = new RRateLimiter[keys];
			for (int k = 0; k < keys; k++) {
				redisson[k] = context.redisson().getRateLimiter(PREFIX + "redisson:limit-" + limit + ":" + key(k));
				redisson[k].trySetRate(RateType.OVERALL, limit, PERIOD);
			}
			fill(keys, limit, (call) -> redisson[call % keys].tryAcquireAsync().toCompletableFuture());
			perKey.put(REDISSON, meter.keyBytes("*" + PREFIX + "redisson:limit-" + limit + ":*") / (double) keys);
			results.put(scenario, perKey);
			perKey.forEach((library, value) -> {
				// The logs grow with the count: drawn per admitted call, beside the fixed-size states per key.
				boolean log = library.equals(REDISSON) || library.endsWith(RateLimitAlgorithm.SLIDING_LOG.name());
				(log ? logged : fixedState).computeIfAbsent(library, (name) -> new ArrayList<>())
					.add(log ? value / limit : value);
				System.out.printf("memory.ratelimit limit %-7d %-26s %,12.0f bytes/key%n", limit, library, value);
			});
			meter.clean();
		}
		OpsChart.write(context.options().outputDirectory().resolve("memory-ratelimit.png"),
				"Rate limiters with a fixed-size state: Redis bytes per key", "bytes per key", scenarios,
				fixedState);
		OpsChart.write(context.options().outputDirectory().resolve("memory-ratelimit-log.png"),
				"Rate limiters that log each call: Redis bytes per admitted call", "bytes per admitted call",
				scenarios, logged);
		return results;
	}

	/** Sends {@code keys * limit} calls, {@value #IN_FLIGHT} at a time, and waits for every reply. */
	private static void fill(int keys, long limit, IntFunction<CompletableFuture<?>> call) {
		long calls = keys * limit;
		List<CompletableFuture<?>> window = new ArrayList<>(IN_FLIGHT);
		for (int i = 0; i < calls; i++) {
			window.add(call.apply(i));
			if (window.size() == IN_FLIGHT) {
				CompletableFuture.allOf(window.toArray(CompletableFuture<?>[]::new)).join();
				window.clear();
			}
		}
		CompletableFuture.allOf(window.toArray(CompletableFuture<?>[]::new)).join();
	}

	private Map<String, Object> queue(BenchmarkContext context, Meter meter) throws Exception {
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
		meter.clean();
		perMessage.forEach((library, value) -> System.out.printf("memory.queue %-10s %,8.0f bytes/waiting message "
				+ "(payload %d bytes)%n", library, value, PAYLOAD.length()));
		OpsChart.write(context.options().outputDirectory().resolve("memory-queue.png"),
				"Delay queue: Redis bytes per waiting message (100-byte payload)", "bytes per message",
				List.of("waiting message"), toSeries(perMessage));
		return Map.of("payloadBytes", PAYLOAD.length(), "bytesPerMessage", perMessage);
	}

	private Map<String, Object> bloom(BenchmarkContext context, Meter meter) throws Exception {
		BloomFilterRegistry registry = new BloomFilterRegistry(context.connectionFactory(), new KeyNaming(PREFIX),
				BloomFilterListener.NONE);
		Map<String, Object> results = new LinkedHashMap<>();
		List<String> scenarios = new ArrayList<>();
		Map<String, List<Double>> series = new LinkedHashMap<>();
		for (double rate : new double[] { 0.01, 0.001 }) {
			String scenario = "fp " + (rate * 100) + "%";
			scenarios.add(scenario);
			String kitName = "bloom-" + System.nanoTime();
			BloomFilter kit = registry.create(kitName, BloomFilterSpec.of(BLOOM_ITEMS, rate));
			Map<String, Double> perItem = new LinkedHashMap<>();
			addItems(kit::addAll);
			perItem.put(REDIS_KIT, meter.keyBytes(PREFIX + "*" + kitName + "*") / (double) BLOOM_ITEMS);
			String redissonName = PREFIX + "redisson:bloom-" + System.nanoTime();
			RBloomFilter<String> redisson = context.redisson().getBloomFilter(redissonName, StringCodec.INSTANCE);
			redisson.tryInit(BLOOM_ITEMS, rate);
			addItems(redisson::add);
			perItem.put(REDISSON, meter.keyBytes("*" + redissonName + "*") / (double) BLOOM_ITEMS);
			kit.delete();
			redisson.delete();
			results.put(scenario, perItem);
			perItem.forEach((library, value) -> {
				series.computeIfAbsent(library, (name) -> new ArrayList<>()).add(value);
				System.out.printf("memory.bloom %-8s %-10s %6.2f bytes/item%n", scenario, library, value);
			});
		}
		meter.clean();
		OpsChart.write(context.options().outputDirectory().resolve("memory-bloom.png"),
				"Bloom filters: Redis bytes per expected item", "bytes per item", scenarios, series);
		return results;
	}

	/** Adds {@value #BLOOM_ITEMS} distinct items, 10,000 per call. */
	private static void addItems(Consumer<List<String>> add) {
		for (int i = 0; i < BLOOM_ITEMS; i += 10_000) {
			List<String> items = new ArrayList<>(10_000);
			for (int j = i; j < i + 10_000; j++) {
				items.add("item-" + j);
			}
			add.accept(items);
		}
	}

	private Map<String, Object> geo(BenchmarkContext context, Meter meter) throws Exception {
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
		meter.clean();
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

	/** The server's {@code used_memory} around a scenario, and the clean-up after one. */
	private static final class Meter {

		private final BenchmarkContext context;

		private final StatefulRedisConnection<byte[], byte[]> connection;

		Meter(BenchmarkContext context, StatefulRedisConnection<byte[], byte[]> connection) {
			this.context = context;
			this.connection = connection;
		}

		double perUnit(long units, Runnable work) {
			settle();
			long before = usedMemory();
			work.run();
			long after = usedMemory();
			return (after - before) / (double) units;
		}

		/**
		 * {@code used_memory} less the clients' buffers ({@code mem_clients_normal}): a pipelined fill grows the
		 * server's query buffers, which shrink again later and would be counted against the next scenario.
		 */
		private long usedMemory() {
			String info = this.connection.sync().info("memory");
			return field(info, "used_memory") - field(info, "mem_clients_normal");
		}

		/**
		 * The exact size of the matching keys by {@code MEMORY USAGE key SAMPLES 0} (the key, its value and its
		 * entry in the key space): per key, unlike {@code used_memory}, it is not blurred by the key space's own
		 * tables growing as keys are added.
		 */
		long keyBytes(String pattern) {
			KeyTools keys = new KeyTools((LettuceConnectionFactory) this.context.connectionFactory(), List.of());
			List<RedisFuture<Long>> sizes = new ArrayList<>();
			keys.scan(KeyScanOptions.matching(pattern).withBatchSize(1000)).forEachRemaining((key) -> sizes.add(
					this.connection.async().dispatch(CommandType.MEMORY, new IntegerOutput<>(ByteArrayCodec.INSTANCE),
							new CommandArgs<>(ByteArrayCodec.INSTANCE).add("USAGE")
								.addKey(key.getBytes(StandardCharsets.UTF_8))
								.add("SAMPLES")
								.add(0))));
			long total = 0;
			for (RedisFuture<Long> size : sizes) {
				total += size.toCompletableFuture().join();
			}
			return total;
		}

		/** Waits (at most 60 s) until memory freed in the background after an earlier scenario is gone. */
		private void settle() {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
			while (field(this.connection.sync().info("memory"), "lazyfree_pending_objects") > 0
					&& System.nanoTime() < deadline) {
				Thread.onSpinWait();
			}
		}

		private static long field(String info, String name) {
			for (String line : info.split("\r?\n")) {
				if (line.startsWith(name + ":")) {
					return Long.parseLong(line.substring(name.length() + 1).trim());
				}
			}
			throw new IllegalStateException("INFO memory has no " + name);
		}

		void clean() {
			KeyTools keys = new KeyTools((LettuceConnectionFactory) this.context.connectionFactory(), List.of());
			keys.deleteByPattern(KeyScanOptions.matching(PREFIX + "*"), DeleteOptions.defaults());
			this.context.progress("memory: deleted " + PREFIX + "*");
		}

	}

}
