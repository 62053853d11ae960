package io.rediskit.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.rediskit.benchmarks.bloom.BloomBenchmark;
import io.rediskit.benchmarks.counter.CounterBenchmark;
import io.rediskit.benchmarks.cache.CacheBenchmark;
import io.rediskit.benchmarks.cluster.ClusterBenchmark;
import io.rediskit.benchmarks.curves.CurvesBenchmark;
import io.rediskit.benchmarks.geo.GeoBenchmark;
import io.rediskit.benchmarks.keys.KeysBenchmark;
import io.rediskit.benchmarks.lock.LockBenchmark;
import io.rediskit.benchmarks.lock.MultiLockBenchmark;
import io.rediskit.benchmarks.lock.SemaphoreBenchmark;
import io.rediskit.benchmarks.lock.ReadWriteFairBenchmark;
import io.rediskit.benchmarks.lock.RedlockBenchmark;
import io.rediskit.benchmarks.memory.MemoryBenchmark;
import io.rediskit.benchmarks.queue.QueueBenchmark;
import io.rediskit.benchmarks.queue.QueueDrainBenchmark;
import io.rediskit.benchmarks.rank.RankBenchmark;
import io.rediskit.benchmarks.ratelimit.RateLimitBenchmark;
import io.rediskit.benchmarks.web.WebBenchmark;

/**
 * Runs benchmarks by name:
 * <pre>
 * java -jar benchmarks/target/redis-kit-benchmarks.jar [--warmup=3s] [--duration=10s] [--threads=16]
 *     [--out=docs/benchmarks] lock ratelimit queue cluster bloom geo keys web redlock cache rank counter curves
 * </pre>
 * Results go to standard output, one line per scenario, after a header line that names the server and the
 * JVM, and a list of the figures whose rounds disagreed by more than a quarter of their median ({@link Spread})
 * after them; progress and warnings go to standard error. The exit status is {@code 0} for a clean run, {@code 1}
 * when a benchmark reported anomalies (its numbers are written but doubtful) or failed, and {@code 2} for a
 * bad command line. See {@link BenchmarkOptions} for the options and {@link BenchmarkContext} for how the
 * server is chosen.
 */
public final class BenchmarkMain {

	private BenchmarkMain() {
	}

	/** @return every benchmark, by subcommand name; a new area adds its benchmark here */
	static Map<String, Benchmark> benchmarks() {
		Map<String, Benchmark> benchmarks = new LinkedHashMap<>();
		List<Benchmark> all = List.of(new LockBenchmark(), new RateLimitBenchmark(), new QueueBenchmark(),
				new ClusterBenchmark(), new BloomBenchmark(), new GeoBenchmark(), new KeysBenchmark(),
				new QueueDrainBenchmark(), new WebBenchmark(), new RedlockBenchmark(), new CacheBenchmark(),
				new RankBenchmark(),
				new MemoryBenchmark(),
				new MultiLockBenchmark(),
				new CounterBenchmark(),
				new SemaphoreBenchmark(),
				new ReadWriteFairBenchmark(),
				new CurvesBenchmark());
		for (Benchmark benchmark : all) {
			benchmarks.put(benchmark.name(), benchmark);
		}
		return benchmarks;
	}

	/**
	 * Runs the benchmarks the arguments name.
	 * @param args options and benchmark names
	 * @throws Exception if a benchmark cannot run
	 */
	public static void main(String[] args) throws Exception {
		// Charts are drawn with AWT, which must not look for a display on a server.
		System.setProperty("java.awt.headless", "true");
		Map<String, Benchmark> available = benchmarks();
		BenchmarkOptions options;
		List<Benchmark> selected = new ArrayList<>();
		try {
			options = BenchmarkOptions.parse(args, System.getProperties());
			if (options.benchmarks().isEmpty()) {
				throw new IllegalArgumentException("Name at least one benchmark");
			}
			for (String name : options.benchmarks()) {
				Benchmark benchmark = available.get(name);
				if (benchmark == null) {
					throw new IllegalArgumentException("Unknown benchmark '" + name + "'");
				}
				selected.add(benchmark);
			}
		}
		catch (IllegalArgumentException ex) {
			System.err.println(ex.getMessage());
			System.err.println("Usage: java -jar redis-kit-benchmarks.jar [--warmup=3s] [--duration=10s] "
					+ "[--threads=16] [--out=docs/benchmarks] <benchmark>...  (benchmarks: "
					+ String.join(", ", available.keySet()) + ")");
			System.exit(2);
			return;
		}
		int anomalies;
		List<String> noisy;
		try (BenchmarkContext context = BenchmarkContext.open(options)) {
			System.out.println(context.describe());
			for (Benchmark benchmark : selected) {
				benchmark.run(context);
			}
			anomalies = context.anomalies();
			noisy = context.noisyFigures();
		}
		if (!noisy.isEmpty()) {
			// On standard output with the results they qualify: a reader of the figures must see it.
			System.out.println(noisy.size() + " figures NOISY (rounds more than "
					+ Math.round(Spread.NOISY_ABOVE * 100) + "% apart; rerun on a quieter machine before quoting them):");
			noisy.forEach((figure) -> System.out.println("  " + figure));
		}
		if (anomalies > 0) {
			System.err.println(anomalies + " anomalies reported above: the results are doubtful");
		}
		// Workers that never finished are daemon threads, and the clients' threads may linger: exit explicitly.
		System.exit((anomalies > 0) ? 1 : 0);
	}

}
