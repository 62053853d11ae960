package io.rediskit.benchmarks.bloom;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.api.StatefulRedisConnection;
import io.rediskit.benchmarks.Benchmark;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.ConcurrentLoad;
import io.rediskit.benchmarks.JsonWriter;
import io.rediskit.benchmarks.Spread;
import io.rediskit.bloom.BloomFilter;
import io.rediskit.bloom.BloomFilterListener;
import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.bloom.BloomFilterSpec;
import io.rediskit.bloom.BloomGrowth;
import io.rediskit.support.KeyNaming;
import org.redisson.api.RBloomFilter;

/**
 * {@code bloom}: adds and lookups per second, one item per call (with the run's threads) and in batches of
 * 1 000 and 10 000 items (one thread, one batch after another), for redis-kit's {@link BloomFilter} and
 * Redisson's {@link RBloomFilter} in the same run, both sized for 10^6 items at 1%, and for the floor: bare Lettuce
 * sending the commands redis-kit sends, chunked and pipelined alike ({@link BloomFloor}). Then a growing filter
 * (sized for 10^4 items, filled to 10^6: seven layers), one item per call, beside the plain filters of the same run
 * and its own floor, redis-kit's scripts run by bare Lettuce ({@link GrowingBloomFloor}): Redisson has no scalable
 * filter, so the plain path is the comparison, and the ratio says what checking every layer costs.
 * Each scenario runs every library in the run's rounds, in a rotating order; the median round is reported, with the
 * spread of the rounds ({@link Spread}). Writes {@code bloom.json}.
 */
public final class BloomBenchmark implements Benchmark {

	private static final long EXPECTED = 1_000_000;

	private static final double RATE = 0.01;

	private static final List<String> LIBRARIES = List.of("redis-kit", "redisson", "floor");

	@Override
	public String name() {
		return "bloom";
	}

	@Override
	public void run(BenchmarkContext context) throws Exception {
		BloomFilterRegistry registry = new BloomFilterRegistry(context.connectionFactory(), KeyNaming.defaults(),
				BloomFilterListener.NONE);
		String run = Long.toString(System.nanoTime(), 36);
		BloomFilter kit = registry.create("bench-" + run, BloomFilterSpec.of(EXPECTED, RATE));
		RBloomFilter<String> redisson = context.redisson().getBloomFilter("bench-redisson-" + run);
		redisson.tryInit(EXPECTED, RATE);
		Map<String, Object> results = new LinkedHashMap<>();
		AtomicLong sequence = new AtomicLong();
		try (StatefulRedisConnection<byte[], byte[]> connection = context.connectLettuce()) {
			if (kit.info().shards() != 1) {
				throw new IllegalStateException("The floor has one shard; redis-kit's filter has " + kit.info().shards());
			}
			BloomFloor floor = new BloomFloor(connection, "bench-floor-" + run, kit.info().bits(), kit.info().hashes());
			results.put("add.single", compare(context, "bloom.add.single",
					(thread) -> kit.add("i-" + sequence.incrementAndGet()),
					(thread) -> redisson.add("i-" + sequence.incrementAndGet()),
					(thread) -> floor.add("i-" + sequence.incrementAndGet())));
			results.put("contains.single", compare(context, "bloom.contains.single",
					(thread) -> kit.mightContain("i-" + (sequence.incrementAndGet() % 100_000)),
					(thread) -> redisson.contains("i-" + (sequence.incrementAndGet() % 100_000)),
					(thread) -> floor.mightContain("i-" + (sequence.incrementAndGet() % 100_000))));
			for (int size : new int[] { 1_000, 10_000 }) {
				results.put("add.batch" + size, compareBatches(context, "bloom.add.batch" + size, size, sequence,
						(batch) -> kit.addAll(batch), (batch) -> redisson.add(batch), floor::addAll));
				results.put("contains.batch" + size, compareBatches(context, "bloom.contains.batch" + size, size,
						sequence, (batch) -> kit.mightContainAll(batch), (batch) -> redisson.contains(batch),
						floor::mightContainAll));
			}
			floor.delete();
			String growingName = "bench-growing-" + run;
			BloomGrowth growth = new BloomGrowth(2, 0.5, 10);
			BloomFilterSpec growingSpec = BloomFilterSpec.of(EXPECTED / 100, RATE);
			BloomFilter growing = registry.create(growingName, growingSpec.withGrowth(growth));
			fill(growing, EXPECTED);
			context.progress("bloom: growing filter of " + growing.info().layers().size() + " layers");
			// The floor runs the same scripts on the same keys: the same layers to ask and the same one to write.
			KeyNaming keys = KeyNaming.defaults();
			List<String> layerKeys = new ArrayList<>();
			for (int i = 0; i < growth.maxLayers(); i++) {
				layerKeys.add(keys.key("bloom", growingName, "layer:" + i));
			}
			GrowingBloomFloor growingFloor = new GrowingBloomFloor(connection, keys.key("bloom", growingName), layerKeys,
					growingSpec, growth);
			results.put("growing.add.single", compareGrowing(context, "bloom.growing.add.single",
					(thread) -> growing.add("g-" + sequence.incrementAndGet()),
					(thread) -> kit.add("g-" + sequence.incrementAndGet()),
					(thread) -> redisson.add("g-" + sequence.incrementAndGet()),
					(thread) -> growingFloor.add("g-" + sequence.incrementAndGet())));
			results.put("growing.contains.single", compareGrowing(context, "bloom.growing.contains.single",
					(thread) -> growing.mightContain("i-" + (sequence.incrementAndGet() % 100_000)),
					(thread) -> kit.mightContain("i-" + (sequence.incrementAndGet() % 100_000)),
					(thread) -> redisson.contains("i-" + (sequence.incrementAndGet() % 100_000)),
					(thread) -> growingFloor.mightContain("i-" + (sequence.incrementAndGet() % 100_000))));
			growing.delete();
		}
		kit.delete();
		redisson.delete();
		Files.createDirectories(context.options().outputDirectory());
		JsonWriter.write(context.options().outputDirectory().resolve("bloom.json"),
				Map.of("environment", context.environment(), "unit", "items per second", "results", results));
	}

	private static Map<String, Object> compare(BenchmarkContext context, String label, ConcurrentLoad.Operation kit,
			ConcurrentLoad.Operation redisson, ConcurrentLoad.Operation floor) throws Exception {
		Map<String, ConcurrentLoad.Operation> operations = Map.of("redis-kit", kit, "redisson", redisson, "floor", floor);
		Map<String, Spread> spreads = context.rounds(label, LIBRARIES,
				(library) -> context.load(label + " " + library).run(operations.get(library)).opsPerSecond());
		return Spread.reportAgainstPeerAndFloor(label, spreads, context.cpu(label));
	}

	private static void fill(BloomFilter filter, long items) {
		List<String> batch = new ArrayList<>(10_000);
		for (long i = 0; i < items; i++) {
			batch.add("fill-" + i);
			if (batch.size() == 10_000) {
				filter.addAll(batch);
				batch.clear();
			}
		}
		filter.addAll(batch);
	}

	private static Map<String, Object> compareGrowing(BenchmarkContext context, String label,
			ConcurrentLoad.Operation growing, ConcurrentLoad.Operation plain, ConcurrentLoad.Operation redisson,
			ConcurrentLoad.Operation floor) throws Exception {
		Map<String, ConcurrentLoad.Operation> operations = new LinkedHashMap<>();
		operations.put("redis-kit growing", growing);
		operations.put("redis-kit plain", plain);
		operations.put("redisson plain", redisson);
		operations.put("floor", floor);
		Map<String, Spread> spreads = context.rounds(label, List.copyOf(operations.keySet()),
				(library) -> context.load(label + " " + library).run(operations.get(library)).opsPerSecond());
		double growingRate = spreads.get("redis-kit growing").median();
		double plainRate = spreads.get("redis-kit plain").median();
		double redissonRate = spreads.get("redisson plain").median();
		double floorRate = spreads.get("floor").median();
		System.out.printf("%-30s growing %,12.0f/s  plain %,12.0f/s  redisson plain %,12.0f/s  floor %,12.0f/s"
				+ "  of plain %.2f  of floor %.2f  %s  %s%n", label, growingRate, plainRate, redissonRate, floorRate,
				growingRate / plainRate, growingRate / floorRate, Spread.token(spreads),
				context.cpu(label).token("redisson plain"));
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("redis-kit growing", growingRate);
		result.put("redis-kit plain", plainRate);
		result.put("redisson plain", redissonRate);
		result.put("floor", floorRate);
		result.put("ofPlain", growingRate / plainRate);
		result.put("ofFloor", growingRate / floorRate);
		spreads.forEach((library, spread) -> result.put(library + " rounds", spread.toJson()));
		return result;
	}

	private static Map<String, Object> compareBatches(BenchmarkContext context, String label, int size,
			AtomicLong sequence, Batch kit, Batch redisson, Batch floor) throws Exception {
		Map<String, Batch> batches = Map.of("redis-kit", kit, "redisson", redisson, "floor", floor);
		return Spread.reportAgainstPeerAndFloor(label, context.rounds(label, LIBRARIES,
				(library) -> batches(context, size, sequence, batches.get(library))));
	}

	/** Items per second of one thread sending batches back to back for the run's duration. */
	static double batches(BenchmarkContext context, int size, AtomicLong sequence, Batch batch) {
		Duration duration = context.options().duration();
		long items = 0;
		long start = System.nanoTime();
		do {
			List<String> members = new ArrayList<>(size);
			for (int i = 0; i < size; i++) {
				members.add("b-" + sequence.incrementAndGet());
			}
			batch.send(members);
			items += size;
		}
		while (System.nanoTime() - start < duration.toNanos());
		return items / ((System.nanoTime() - start) / 1e9);
	}

	@FunctionalInterface
	interface Batch {

		void send(List<String> items);

	}

}
