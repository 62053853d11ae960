package io.rediskit.benchmarks.keys;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.CurveChart;
import io.rediskit.benchmarks.MedianRound;
import io.rediskit.keys.BigKeyOptions;
import io.rediskit.keys.BigKeyReport;
import io.rediskit.keys.DeleteOptions;
import io.rediskit.keys.KeyPatterns;
import io.rediskit.keys.KeyScanOptions;
import io.rediskit.keys.KeyTools;
import org.redisson.api.options.KeysScanOptions;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The key tools' cost curve: as the key space grows through the given sizes, how long a scan and a big-key report
 * of every key take, per 10^6 keys, and what another client, sending {@code PING}s back to back on a connection of
 * its own, sees meanwhile (p50, p99, max). Side by side:
 * <ul>
 * <li>scan: redis-kit's {@code KeyTools.scan} (duplicates removed, unpaced), Redisson's
 * {@code RKeys.getKeysStream}, and the bare driver's {@code SCAN} loop (the floor);</li>
 * <li>big-key report: redis-kit's {@code KeyTools.bigKeys} (top 10, {@code MEMORY USAGE} sampling 5, unpaced) and
 * its floor, the bare driver sending per {@code SCAN} page the commands the report sends per key ({@code TYPE},
 * {@code MEMORY USAGE ... SAMPLES 5}, {@code PTTL}, {@code OBJECT ENCODING}, then the length:
 * {@code STRLEN} here) pipelined, without ranking. Redisson has no big-key report.</li>
 * </ul>
 * All {@value KeysBenchmark#SCAN_COUNT} keys per {@code SCAN}. The keys are small strings, made by
 * {@code DEBUG POPULATE} where the server allows it (the fastest load there is), else by pipelined {@code MSET}s,
 * from one size to the next. Each round runs every contestant, in a rotating order; the median round (by time) is
 * reported.
 */
public final class KeysCurves {

	private static final String PREFIX = "bench:curves:keys";

	private static final List<String> CONTESTANTS = List.of("scan redis-kit", "scan redisson", "scan floor",
			"bigkeys redis-kit", "bigkeys floor");

	private KeysCurves() {
	}

	/**
	 * Grows the key space through the sizes and times the tools at each.
	 * @param context the run
	 * @param sizes key counts, ascending
	 * @param filePrefix the charts go to {@code <filePrefix>-keys-time.png} and {@code <filePrefix>-keys-p99.png}
	 * @return the figures by size and contestant
	 * @throws Exception if the server cannot be reached or a chart cannot be written
	 */
	public static Map<String, Object> run(BenchmarkContext context, List<Long> sizes, String filePrefix)
			throws Exception {
		KeyTools keyTools = new KeyTools((LettuceConnectionFactory) context.connectionFactory(), List.of());
		String pattern = KeyPatterns.escape(PREFIX + ":") + "*";
		Map<String, Object> bySize = new LinkedHashMap<>();
		Map<String, List<Double>> secondsPerMillion = new LinkedHashMap<>();
		Map<String, List<Double>> p99 = new LinkedHashMap<>();
		try (StatefulRedisConnection<byte[], byte[]> driver = context.connectLettuce();
				StatefulRedisConnection<byte[], byte[]> prober = context.connectLettuce()) {
			long loaded = 0;
			for (long size : sizes) {
				loaded = load(context, driver, loaded, size);
				Map<String, KeysBenchmark.DeleteRun> runs = contestants(context, keyTools, driver, pattern, size);
				Map<String, List<KeysBenchmark.Deletion>> rounds = new LinkedHashMap<>();
				for (int round = 0; round < context.options().rounds(); round++) {
					for (int i = 0; i < CONTESTANTS.size(); i++) {
						String name = CONTESTANTS.get((round + i) % CONTESTANTS.size());
						context.progress("curve.keys " + size + " keys, " + name + ": round " + (round + 1));
						rounds.computeIfAbsent(name, (key) -> new ArrayList<>())
							.add(KeysBenchmark.probed(prober.sync(), runs.get(name)));
					}
				}
				Map<String, Object> results = new LinkedHashMap<>();
				for (String name : CONTESTANTS) {
					MedianRound<KeysBenchmark.Deletion> measured = MedianRound.of(context,
							"curve.keys " + size + " " + name, rounds.get(name), (d) -> d.elapsed().toNanos());
					KeysBenchmark.Deletion median = measured.round();
					double perMillion = median.elapsed().toNanos() / 1e9 / size * 1_000_000;
					secondsPerMillion.computeIfAbsent(name, (key) -> new ArrayList<>()).add(perMillion);
					p99.computeIfAbsent(name, (key) -> new ArrayList<>()).add(median.p99Micros() / 1000);
					Map<String, Object> result = new LinkedHashMap<>();
					result.put("millis", median.elapsed().toMillis());
					result.put("secondsPerMillionKeys", perMillion);
					result.put("millisByRound", rounds.get(name).stream().map((d) -> d.elapsed().toMillis()).toList());
					result.put("otherClientP50Micros", Math.round(median.p50Micros()));
					result.put("otherClientP99Micros", Math.round(median.p99Micros()));
					result.put("otherClientMaxMicros", Math.round(median.maxMicros()));
					result.put("otherClientCalls", median.probes());
					measured.spread().addTo(result);
					results.put(name, result);
					System.out.printf("curve.keys %,11d keys %-18s %,9d ms  %6.2f s per 10^6 keys; other client p50 %,6.0f us"
							+ "  p99 %,7.0f us  max %,8.0f us  %s%n", size, name, median.elapsed().toMillis(), perMillion,
							median.p50Micros(), median.p99Micros(), median.maxMicros(), measured.spread().token());
				}
				bySize.put(Long.toString(size), results);
			}
		}
		finally {
			keyTools.deleteByPattern(KeyScanOptions.matching(pattern), DeleteOptions.defaults());
		}
		CurveChart.write(context.options().outputDirectory().resolve(filePrefix + "-keys-time.png"),
				"Key tools: seconds per 10^6 keys as the key space grows (median round)", "keys in the key space",
				"seconds per 10^6 keys", sizes, secondsPerMillion);
		CurveChart.write(context.options().outputDirectory().resolve(filePrefix + "-keys-p99.png"),
				"Key tools: another client's p99 meanwhile (back-to-back PINGs)", "keys in the key space", "p99 (ms)",
				sizes, p99);
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("scanCount", KeysBenchmark.SCAN_COUNT);
		json.put("bySize", bySize);
		return json;
	}

	private static Map<String, KeysBenchmark.DeleteRun> contestants(BenchmarkContext context, KeyTools keyTools,
			StatefulRedisConnection<byte[], byte[]> driver, String pattern, long size) {
		Map<String, KeysBenchmark.DeleteRun> runs = new HashMap<>();
		runs.put("scan redis-kit", () -> expect(context, "scan redis-kit", size, keyTools
			.scan(KeyScanOptions.matching(pattern).withBatchSize(KeysBenchmark.SCAN_COUNT).withKeysPerSecond(0))
			.stream()
			.count()));
		runs.put("scan redisson", () -> expect(context, "scan redisson", size, context.redisson()
			.getKeys()
			.getKeysStream(KeysScanOptions.defaults().pattern(pattern).chunkSize(KeysBenchmark.SCAN_COUNT))
			.count()));
		runs.put("scan floor", () -> expect(context, "scan floor", size, KeysBenchmark.floorScan(driver.sync(), pattern)));
		runs.put("bigkeys redis-kit", () -> {
			BigKeyReport report = keyTools.bigKeys(BigKeyOptions
				.of(KeyScanOptions.matching(pattern).withBatchSize(KeysBenchmark.SCAN_COUNT).withKeysPerSecond(0)));
			expect(context, "bigkeys redis-kit", size, report.keysScanned());
		});
		runs.put("bigkeys floor", () -> expect(context, "bigkeys floor", size, floorBigKeys(driver.async(), pattern)));
		return runs;
	}

	private static void expect(BenchmarkContext context, String name, long size, long found) {
		if (found < size) {
			context.reportAnomaly("curve.keys " + name + " went through " + found + " of " + size + " keys", null);
		}
	}

	/** Per {@code SCAN} page, the report's five commands per key, pipelined, then the page's replies awaited. */
	private static long floorBigKeys(RedisAsyncCommands<byte[], byte[]> commands, String pattern) throws Exception {
		ScanArgs args = ScanArgs.Builder.matches(pattern).limit(KeysBenchmark.SCAN_COUNT);
		long described = 0;
		ScanCursor cursor = ScanCursor.INITIAL;
		do {
			KeyScanCursor<byte[]> page = commands.scan(cursor, args).get(60, TimeUnit.SECONDS);
			List<RedisFuture<?>> replies = new ArrayList<>();
			for (byte[] key : page.getKeys()) {
				replies.add(commands.type(key));
				replies.add(commands.dispatch(CommandType.MEMORY, new IntegerOutput<>(ByteArrayCodec.INSTANCE),
						new CommandArgs<>(ByteArrayCodec.INSTANCE).add("USAGE").addKey(key).add("SAMPLES").add(5)));
				replies.add(commands.pttl(key));
				replies.add(commands.objectEncoding(key));
				replies.add(commands.strlen(key));
			}
			for (RedisFuture<?> reply : replies) {
				reply.get(60, TimeUnit.SECONDS);
			}
			described += page.getKeys().size();
			cursor = page;
		}
		while (!cursor.isFinished());
		return described;
	}

	/** Adds keys {@code from} to {@code to}: small strings named {@code <prefix>:<n>}. */
	private static long load(BenchmarkContext context, StatefulRedisConnection<byte[], byte[]> driver, long from,
			long to) throws Exception {
		long start = System.nanoTime();
		String how;
		try {
			// Creates the keys PREFIX:0 to PREFIX:(to - 1) that do not exist yet, in the server, in one call.
			driver.sync()
				.dispatch(CommandType.DEBUG, new StatusOutput<>(ByteArrayCodec.INSTANCE),
						new CommandArgs<>(ByteArrayCodec.INSTANCE).add("POPULATE").add(to).add(PREFIX).add(16));
			how = "DEBUG POPULATE";
		}
		catch (RuntimeException ex) {
			// DEBUG is off on this server (enable-debug-command): the same keys by pipelined MSETs.
			RedisAsyncCommands<byte[], byte[]> commands = driver.async();
			List<RedisFuture<String>> writes = new ArrayList<>();
			for (long chunk = from; chunk < to; chunk += 1000) {
				Map<byte[], byte[]> batch = new HashMap<>();
				for (long i = chunk; i < Math.min(to, chunk + 1000); i++) {
					batch.put(KeysBenchmark.utf8(PREFIX + ":" + i), KeysBenchmark.utf8("value:" + i));
				}
				writes.add(commands.mset(batch));
				if (writes.size() == 100) {
					for (RedisFuture<String> write : writes) {
						write.get(60, TimeUnit.SECONDS);
					}
					writes.clear();
				}
			}
			for (RedisFuture<String> write : writes) {
				write.get(60, TimeUnit.SECONDS);
			}
			how = "MSET (DEBUG refused: " + ex.getMessage() + ")";
		}
		context.progress("curve.keys: keys " + from + " to " + to + " by " + how + " in "
				+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
		return to;
	}

}
