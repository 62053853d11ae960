package io.rediskit.benchmarks.bloom;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.api.StatefulRedisConnection;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.ConcurrentLoad;
import io.rediskit.benchmarks.OpsChart;
import io.rediskit.benchmarks.Spread;
import io.rediskit.benchmarks.memory.MemoryBenchmark;
import io.rediskit.benchmarks.memory.ServerMemory;
import io.rediskit.bloom.BloomFilter;
import io.rediskit.bloom.BloomFilterInfo;
import io.rediskit.bloom.BloomFilterListener;
import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.bloom.BloomFilterSpec;
import io.rediskit.support.KeyNaming;
import org.redisson.api.RBloomFilter;
import org.redisson.client.codec.StringCodec;

/**
 * The Bloom filter's cost curve: bytes per item at 1% and 0.1% (the {@code memory} benchmark's measure, at the
 * sizes given), and how fast a filter answers as its one shard grows: single adds and lookups on the run's threads
 * and batches of {@value #BATCH} adds on one thread, on a filter of each given number of bits at 1%, redis-kit's,
 * Redisson's {@code RBloomFilter} of the same sizing, and the floor ({@link BloomFloor}: bare Lettuce sending the
 * {@code BITFIELD} and {@code BITFIELD_RO} commands redis-kit sends, batches in the same pipelined calls). A filter of 10^6 bits (125 kB) stays in the processor's caches; one of 10^8 (12.5 MB) does
 * not, and every item's bits are a few random reads or writes in it.
 * <p>
 * The filters are not filled first: from its creation redis-kit's shard has its full length, and Redisson's string
 * reaches nearly its full length with its first few random writes, so neither grows while it is measured. Each
 * round runs every library, in a rotating order; the median round is reported.
 */
public final class BloomCurves {

	static final double RATE = 0.01;

	static final int BATCH = 1_000;

	private static final String PREFIX = "bench:curves:";

	private static final List<String> SCENARIOS = List.of("add.single", "contains.single", "add.batch" + BATCH);

	/** The scenarios as the chart labels its groups. */
	private static final List<String> LABELS = List.of("add", "contains", "add x" + BATCH);

	private static final List<String> LIBRARIES = List.of("redis-kit", "redisson", "floor");

	private BloomCurves() {
	}

	/**
	 * Measures bytes per item and throughput per shard size.
	 * @param context the run
	 * @param meter the server's memory
	 * @param items the sizes of the filters measured for bytes per item
	 * @param shardBits the shard sizes measured for throughput, ascending
	 * @param filePrefix the charts go to {@code <filePrefix>-<items>-bloom.png} (bytes) and
	 * {@code <filePrefix>-bloom-throughput.png}
	 * @return the figures
	 * @throws Exception if the server cannot be reached or a chart cannot be written
	 */
	public static Map<String, Object> run(BenchmarkContext context, ServerMemory meter, List<Long> items,
			List<Long> shardBits, String filePrefix) throws Exception {
		Map<String, Object> json = new LinkedHashMap<>();
		Map<String, Object> bytes = new LinkedHashMap<>();
		for (long count : items) {
			bytes.put(Long.toString(count), MemoryBenchmark.bloom(context, meter, count, filePrefix + "-" + count));
		}
		json.put("bytesPerItem", bytes);
		BloomFilterRegistry registry = new BloomFilterRegistry(context.connectionFactory(), new KeyNaming(PREFIX),
				BloomFilterListener.NONE);
		Map<String, List<Double>> chart = new LinkedHashMap<>();
		Map<String, Object> throughput = new LinkedHashMap<>();
		AtomicLong sequence = new AtomicLong();
		try (StatefulRedisConnection<byte[], byte[]> connection = context.connectLettuce()) {
			for (long bits : shardBits) {
				// n for m bits at p: m = -n ln p / (ln 2)^2, the formula both libraries size by.
				long expected = Math.max(1, Math.round(bits * Math.log(2) * Math.log(2) / -Math.log(RATE)));
				String run = Long.toString(System.nanoTime(), 36);
				BloomFilter kit = registry.create("curve-" + run, BloomFilterSpec.of(expected, RATE));
				BloomFilterInfo info = kit.info();
				if (info.shards() != 1) {
					throw new IllegalStateException("The floor has one shard; redis-kit's filter of " + bits + " bits has "
							+ info.shards());
				}
				RBloomFilter<String> redisson = context.redisson()
					.getBloomFilter(PREFIX + "redisson-bloom-" + run, StringCodec.INSTANCE);
				redisson.tryInit(expected, RATE);
				BloomFloor floor = new BloomFloor(connection, PREFIX + "bloom-floor-" + run, info.bits(), info.hashes());
				context.progress("curve.bloom: " + info.bits() + " bits in " + info.shards() + " shard(s), "
						+ info.hashes() + " hashes; Redisson " + redisson.getSize() + " bits, "
						+ redisson.getHashIterations() + " hashes");
				Map<String, Map<String, List<Double>>> rounds = new LinkedHashMap<>();
				for (int round = 0; round < context.options().rounds(); round++) {
					for (int i = 0; i < LIBRARIES.size(); i++) {
						String library = LIBRARIES.get((round + i) % LIBRARIES.size());
						Map<String, List<Double>> byScenario = rounds.computeIfAbsent(library,
								(name) -> new LinkedHashMap<>());
						String label = "curve.bloom " + bits + " bits ";
						List<Double> rates = switch (library) {
							case "redis-kit" -> measure(context, label, library, sequence,
									(thread) -> kit.add("i-" + sequence.incrementAndGet()),
									(thread) -> kit.mightContain("i-" + (sequence.incrementAndGet() % 100_000)),
									(batch) -> kit.addAll(batch));
							case "redisson" -> measure(context, label, library, sequence,
									(thread) -> redisson.add("i-" + sequence.incrementAndGet()),
									(thread) -> redisson.contains("i-" + (sequence.incrementAndGet() % 100_000)),
									(batch) -> redisson.add(batch));
							default -> measure(context, label, library, sequence,
									(thread) -> floor.add("i-" + sequence.incrementAndGet()),
									(thread) -> floor.mightContain("i-" + (sequence.incrementAndGet() % 100_000)),
									floor::addAll);
						};
						for (int s = 0; s < SCENARIOS.size(); s++) {
							byScenario.computeIfAbsent(SCENARIOS.get(s), (name) -> new ArrayList<>()).add(rates.get(s));
						}
					}
				}
				Map<String, Object> bySize = new LinkedHashMap<>();
				bySize.put("bits", info.bits());
				bySize.put("hashes", info.hashes());
				bySize.put("redissonBits", redisson.getSize());
				for (String scenario : SCENARIOS) {
					Map<String, Object> result = new LinkedHashMap<>();
					Map<String, Double> medians = new LinkedHashMap<>();
					Map<String, Spread> spreads = new LinkedHashMap<>();
					for (String library : LIBRARIES) {
						List<Double> byRound = rounds.get(library).get(scenario);
						Spread spread = context.spread("curve.bloom " + bits + " bits " + scenario + " " + library,
								byRound);
						spreads.put(library, spread);
						double median = spread.median();
						medians.put(library, median);
						result.put(library, Math.round(median));
						result.put(library + "ByRound", byRound.stream().map(Math::round).toList());
						result.put(library + "Spread", spread.toJson().get("spread"));
						result.put(library + "Noisy", spread.noisy());
						// One bar per library and shard size in each scenario's group: the groups' labels stay short.
						chart.computeIfAbsent(library + " " + power(bits), (name) -> new ArrayList<>())
							.add(median);
					}
					result.put("ratio", medians.get("redis-kit") / medians.get("redisson"));
					result.put("ofFloor", medians.get("redis-kit") / medians.get("floor"));
					bySize.put(scenario, result);
					System.out.printf("curve.bloom %,12d bits %-16s redis-kit %,10.0f/s  redisson %,10.0f/s  floor %,10.0f/s"
							+ "  ratio %.2fx  of floor %.2f  %s%n", bits, scenario, medians.get("redis-kit"),
							medians.get("redisson"), medians.get("floor"), medians.get("redis-kit") / medians.get("redisson"),
							medians.get("redis-kit") / medians.get("floor"), Spread.token(spreads));
				}
				throughput.put(Long.toString(bits), bySize);
				kit.delete();
				redisson.delete();
				floor.delete();
			}
		}
		json.put("itemsPerSecondByShardBits", throughput);
		OpsChart.write(context.options().outputDirectory().resolve(filePrefix + "-bloom-throughput.png"),
				"Bloom filter at 1%: items per second, by library and bits per shard (median round)", "items/s", LABELS, chart);
		return json;
	}

	/** One library's three scenarios, in the order of {@link #SCENARIOS}. */
	private static List<Double> measure(BenchmarkContext context, String label, String library, AtomicLong sequence,
			ConcurrentLoad.Operation add, ConcurrentLoad.Operation contains, BloomBenchmark.Batch addAll)
			throws InterruptedException {
		double adds = context.load(label + SCENARIOS.get(0) + " " + library).run(add).opsPerSecond();
		double lookups = context.load(label + SCENARIOS.get(1) + " " + library).run(contains).opsPerSecond();
		context.progress(label + SCENARIOS.get(2) + " " + library);
		double batches = BloomBenchmark.batches(context, BATCH, sequence, addAll);
		return List.of(adds, lookups, batches);
	}

	/** {@code 10^6} for a million, in the chart's legend. */
	private static String power(long value) {
		int exponent = (int) Math.round(Math.log10(value));
		return (Math.pow(10, exponent) == value) ? "10^" + exponent : Long.toString(value);
	}

}
