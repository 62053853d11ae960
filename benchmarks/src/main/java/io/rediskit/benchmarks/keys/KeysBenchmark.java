package io.rediskit.benchmarks.keys;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.rediskit.benchmarks.Benchmark;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.JsonWriter;
import io.rediskit.benchmarks.LatencySample;
import io.rediskit.benchmarks.MedianRound;
import io.rediskit.benchmarks.Spread;
import io.rediskit.keys.DeleteOptions;
import io.rediskit.keys.DeletionReport;
import io.rediskit.keys.KeyPatterns;
import io.rediskit.keys.KeyScanOptions;
import io.rediskit.keys.KeyTools;
import org.redisson.api.options.KeysScanOptions;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@code keys}: the key-space tools on one server, in one run.
 * <ul>
 * <li>{@code keys.scan}: keys per second found by a scan of {@value #DEFAULT_KEYS} keys (or
 * {@code -Drediskit.benchmark.keys.keys=}) matching a pattern, among as many that do not match, {@value #SCAN_COUNT}
 * keys per {@code SCAN}, unpaced: redis-kit's {@code KeyTools.scan}, Redisson's {@code RKeys.getKeysStream}, and
 * the bare driver's {@code SCAN} loop (the floor).</li>
 * <li>{@code keys.delete}: a hash of {@value #DEFAULT_FIELDS} fields ({@code -Drediskit.benchmark.keys.fields=})
 * deleted while another client sends {@code PING}s back to back on a connection of its own: redis-kit's batched
 * {@code deleteKey} (default batches, {@code HSCAN} + {@code HDEL}), a plain {@code DEL}, and {@code UNLINK}.
 * Reported: how long the deletion took, and the latency the other client saw meanwhile (p50, p99, max).</li>
 * </ul>
 * Each round runs every contestant, in a rotating order; the median round is reported. Writes {@code keys.json}.
 */
public final class KeysBenchmark implements Benchmark {

	static final int DEFAULT_KEYS = 1_000_000;

	static final int DEFAULT_FIELDS = 1_000_000;

	static final String KEYS_PROPERTY = "rediskit.benchmark.keys.keys";

	static final String FIELDS_PROPERTY = "rediskit.benchmark.keys.fields";

	static final int SCAN_COUNT = 1000;

	private static final String PREFIX = "bench:keys:";

	@Override
	public String name() {
		return "keys";
	}

	@Override
	public void run(BenchmarkContext context) throws Exception {
		int keys = Integer.getInteger(KEYS_PROPERTY, DEFAULT_KEYS);
		int fields = Integer.getInteger(FIELDS_PROPERTY, DEFAULT_FIELDS);
		KeyTools keyTools = new KeyTools((LettuceConnectionFactory) context.connectionFactory(), List.of());
		String run = Long.toString(System.nanoTime(), 36);
		String matching = PREFIX + run + ":in:";
		String pattern = KeyPatterns.escape(matching) + "*";
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("benchmark", name());
		json.put("timestamp", Instant.now().toString());
		json.put("environment", context.environment());
		try (StatefulRedisConnection<byte[], byte[]> driver = context.connectLettuce();
				StatefulRedisConnection<byte[], byte[]> prober = context.connectLettuce()) {
			load(context, driver.async(), matching, PREFIX + run + ":out:", keys);
			json.put("scan", scans(context, keyTools, driver.sync(), pattern, keys));
			json.put("delete", deletions(context, keyTools, driver, prober, PREFIX + run + ":big", fields));
		}
		finally {
			keyTools.deleteByPattern(KeyScanOptions.matching(KeyPatterns.escape(PREFIX + run) + "*"),
					DeleteOptions.defaults());
		}
		Files.createDirectories(context.options().outputDirectory());
		JsonWriter.write(context.options().outputDirectory().resolve("keys.json"), json);
	}

	/** {@code keys} keys that match, as many that do not: a scan reads twice what it returns. */
	private static void load(BenchmarkContext context, RedisAsyncCommands<byte[], byte[]> commands, String in,
			String out, int keys) throws Exception {
		long start = System.nanoTime();
		List<RedisFuture<String>> writes = new ArrayList<>();
		for (int from = 0; from < keys; from += 1000) {
			Map<byte[], byte[]> batch = new HashMap<>();
			for (int i = from; i < Math.min(keys, from + 1000); i++) {
				batch.put(utf8(in + i), utf8("v"));
				batch.put(utf8(out + i), utf8("v"));
			}
			writes.add(commands.mset(batch));
			if (writes.size() == 100) {
				await(writes);
			}
		}
		await(writes);
		context.progress("keys: loaded " + 2L * keys + " keys in " + Duration.ofNanos(System.nanoTime() - start).toMillis()
				+ " ms");
	}

	private static Map<String, Object> scans(BenchmarkContext context, KeyTools keyTools,
			RedisCommands<byte[], byte[]> driver, String pattern, int keys) {
		Map<String, ScanRun> contestants = new LinkedHashMap<>();
		contestants.put("redis-kit", () -> keyTools.scan(KeyScanOptions.matching(pattern).withBatchSize(SCAN_COUNT)
			.withKeysPerSecond(0)).stream().count());
		contestants.put("redisson", () -> context.redisson().getKeys()
			.getKeysStream(KeysScanOptions.defaults().pattern(pattern).chunkSize(SCAN_COUNT)).count());
		contestants.put("floor", () -> floorScan(driver, pattern));
		Map<String, List<Double>> rates = new LinkedHashMap<>();
		List<String> names = new ArrayList<>(contestants.keySet());
		for (int round = 0; round < context.options().rounds(); round++) {
			for (int i = 0; i < names.size(); i++) {
				String name = names.get((round + i) % names.size());
				context.progress("keys.scan " + name + ": round " + (round + 1));
				long start = System.nanoTime();
				long found = contestants.get(name).scan();
				double seconds = (System.nanoTime() - start) / 1e9;
				if (found < keys) {
					context.reportAnomaly("keys.scan " + name + " found " + found + " of " + keys + " keys", null);
				}
				rates.computeIfAbsent(name, (key) -> new ArrayList<>()).add(keys / seconds);
			}
		}
		Map<String, Object> results = new LinkedHashMap<>();
		Map<String, Spread> spreads = new LinkedHashMap<>();
		rates.forEach((name, byRound) -> spreads.put(name, context.spread("keys.scan " + name, byRound)));
		double floor = spreads.get("floor").median();
		double redisson = spreads.get("redisson").median();
		for (Map.Entry<String, List<Double>> entry : rates.entrySet()) {
			Spread spread = spreads.get(entry.getKey());
			double rate = spread.median();
			System.out.printf("keys.scan %-10s %,12.0f keys/s  %.2fx redisson  %.0f%% of floor  %s%n", entry.getKey(),
					rate, rate / redisson, 100 * rate / floor, spread.token());
			Map<String, Object> result = new LinkedHashMap<>();
			result.put("keysPerSecond", Math.round(rate));
			result.put("keysPerSecondByRound", entry.getValue().stream().map(Math::round).toList());
			spread.addTo(result);
			results.put(entry.getKey(), result);
		}
		results.put("keys", keys);
		return results;
	}

	/**
	 * The floor of a scan: the bare driver's {@code SCAN} loop, {@value #SCAN_COUNT} keys per call, counting the keys
	 * of each page without decoding them.
	 * @param driver the driver's connection
	 * @param pattern the {@code MATCH} glob
	 * @return the keys found
	 */
	static long floorScan(RedisCommands<byte[], byte[]> driver, String pattern) {
		ScanArgs args = ScanArgs.Builder.matches(pattern).limit(SCAN_COUNT);
		long found = 0;
		ScanCursor cursor = ScanCursor.INITIAL;
		do {
			KeyScanCursor<byte[]> page = driver.scan(cursor, args);
			found += page.getKeys().size();
			cursor = page;
		}
		while (!cursor.isFinished());
		return found;
	}

	private static Map<String, Object> deletions(BenchmarkContext context, KeyTools keyTools,
			StatefulRedisConnection<byte[], byte[]> driver, StatefulRedisConnection<byte[], byte[]> prober, String key,
			int fields) throws Exception {
		Map<String, DeleteRun> contestants = new LinkedHashMap<>();
		contestants.put("redis-kit", () -> {
			DeletionReport report = keyTools.deleteKey(key, DeleteOptions.defaults());
			if (report.elements() != fields) {
				context.reportAnomaly("keys.delete redis-kit removed " + report.elements() + " of " + fields, null);
			}
		});
		contestants.put("DEL", () -> driver.sync().del(utf8(key)));
		contestants.put("UNLINK", () -> driver.sync().unlink(utf8(key)));
		Map<String, List<Deletion>> runs = new LinkedHashMap<>();
		List<String> names = new ArrayList<>(contestants.keySet());
		for (int round = 0; round < context.options().rounds(); round++) {
			for (int i = 0; i < names.size(); i++) {
				String name = names.get((round + i) % names.size());
				fillHash(driver.async(), key, fields);
				context.progress("keys.delete " + name + ": round " + (round + 1));
				runs.computeIfAbsent(name, (k) -> new ArrayList<>())
					.add(probed(prober.sync(), contestants.get(name)));
				if (driver.sync().exists(utf8(key)) != 0) {
					context.reportAnomaly("keys.delete " + name + " left the hash behind", null);
				}
			}
		}
		Map<String, Object> results = new LinkedHashMap<>();
		for (Map.Entry<String, List<Deletion>> entry : runs.entrySet()) {
			// The median round by the other client's p99, the figure this scenario is about; its spread is that p99's.
			MedianRound<Deletion> measured = MedianRound.of(context, "keys.delete " + entry.getKey() + " p99",
					entry.getValue(), Deletion::p99Micros);
			Deletion median = measured.round();
			System.out.printf("keys.delete %-10s %,9d ms to delete %,d fields; other client p50 %,7.0f us  "
					+ "p99 %,9.0f us  max %,9.0f us (%,d calls)  %s%n", entry.getKey(), median.elapsed().toMillis(),
					fields, median.p50Micros(), median.p99Micros(), median.maxMicros(), median.probes(),
					measured.spread().token());
			Map<String, Object> result = new LinkedHashMap<>();
			result.put("deletionMillis", median.elapsed().toMillis());
			result.put("otherClientP50Micros", Math.round(median.p50Micros()));
			result.put("otherClientP99Micros", Math.round(median.p99Micros()));
			result.put("otherClientMaxMicros", Math.round(median.maxMicros()));
			result.put("otherClientCalls", median.probes());
			result.put("otherClientP99MicrosByRound", entry.getValue().stream().map((d) -> Math.round(d.p99Micros())).toList());
			measured.spread().addTo(result);
			results.put(entry.getKey(), result);
		}
		results.put("fields", fields);
		return results;
	}

	/** Runs a deletion while another connection PINGs back to back, and records what that connection saw. */
	static Deletion probed(RedisCommands<byte[], byte[]> prober, DeleteRun deletion) throws Exception {
		LatencySample latencies = new LatencySample(1 << 20);
		AtomicBoolean running = new AtomicBoolean(true);
		CompletableFuture<Void> probing = CompletableFuture.runAsync(() -> {
			while (running.get()) {
				long start = System.nanoTime();
				prober.ping();
				latencies.record(System.nanoTime() - start);
			}
		});
		// The prober is running before the deletion starts: its first PINGs are the baseline.
		while (latencies.count() < 10) {
			Thread.onSpinWait();
		}
		long start = System.nanoTime();
		try {
			deletion.delete();
		}
		finally {
			running.set(false);
		}
		Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
		probing.get(60, TimeUnit.SECONDS);
		double[] micros = latencies.percentilesMicros(50, 99, 100);
		return new Deletion(elapsed, micros[0], micros[1], micros[2], latencies.count());
	}

	private static void fillHash(RedisAsyncCommands<byte[], byte[]> commands, String key, int fields) throws Exception {
		List<RedisFuture<Long>> writes = new ArrayList<>();
		byte[] raw = utf8(key);
		for (int from = 0; from < fields; from += 1000) {
			Map<byte[], byte[]> batch = new HashMap<>();
			for (int i = from; i < Math.min(fields, from + 1000); i++) {
				batch.put(utf8("field:" + i), utf8("value:" + i));
			}
			writes.add(commands.hset(raw, batch));
			if (writes.size() == 100) {
				await(writes);
			}
		}
		await(writes);
	}

	private static <T> void await(List<RedisFuture<T>> writes) throws Exception {
		for (RedisFuture<T> write : writes) {
			write.get(60, TimeUnit.SECONDS);
		}
		writes.clear();
	}

	static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	@FunctionalInterface
	private interface ScanRun {

		long scan();

	}

	@FunctionalInterface
	interface DeleteRun {

		void delete() throws Exception;

	}

	/** What the other client saw during one deletion. */
	record Deletion(Duration elapsed, double p50Micros, double p99Micros, double maxMicros, long probes) {
	}

}
