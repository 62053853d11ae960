package io.rediskit.benchmarks.lock;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

import io.lettuce.core.api.StatefulRedisConnection;
import io.rediskit.benchmarks.Benchmark;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.ConcurrentLoad.Outcome;
import io.rediskit.benchmarks.ConcurrentLoad;
import io.rediskit.benchmarks.CpuFigures;
import io.rediskit.benchmarks.JsonWriter;
import io.rediskit.benchmarks.LatencySample;
import io.rediskit.benchmarks.OpsChart;
import io.rediskit.benchmarks.Spread;
import io.rediskit.lock.LockRegistry;
import org.jspecify.annotations.Nullable;

/**
 * {@code lock}: {@code lock()} then {@code unlock()} in a loop, redis-kit's {@link io.rediskit.lock.RedisLock}
 * against Redisson's {@code RLock}, both with their watchdog defaults.
 * <ul>
 * <li>{@code lock.uncontended}: each thread has a lock of its own, so every pair is two round trips and
 * nobody waits. Next to both libraries, the same-script floor ({@code lettuce-evalsha},
 * {@link LockScriptFloor}): redis-kit's acquire and release scripts by bare Lettuce {@code EVALSHA} with the
 * arguments redis-kit sends, on one shared connection.</li>
 * <li>{@code lock.contended}: all threads share one lock. Besides pairs per second it measures the hand-off
 * latency, from the holder's {@code unlock()} call to the return of {@code lock()} in the next thread, which
 * includes the release notification and the waiter's next attempt.</li>
 * </ul>
 * Each scenario runs both libraries one after the other against the same server, for several rounds; the
 * library that goes first alternates between rounds so that neither always runs on a fresher server, and
 * each library's median round is reported, which keeps a burst of noise on a shared machine out of the
 * ratio. Lock names carry the library name, so
 * the two never share a key. The contended scenario also checks that no two threads hold the lock at once;
 * the check sees only overlaps that reach into the few instructions a thread spends inside the lock, so a
 * clean result is a weak guarantee and a dirty one a certain bug.
 */
public final class LockBenchmark implements Benchmark {

	/** Each thread locks a name of its own. */
	public static final String UNCONTENDED = "lock.uncontended";

	/** All threads lock one name. */
	public static final String CONTENDED = "lock.contended";

	/** The same-script floor's name in lines and files. */
	private static final String FLOOR = "lettuce-evalsha";

	// Enough for minutes of hand-offs at loopback rates; beyond it the sample stays uniform (reservoir).
	private static final int HANDOFF_SAMPLE_CAPACITY = 1 << 20;

	@Override
	public String name() {
		return "lock";
	}

	@Override
	public void run(BenchmarkContext context) throws Exception {
		String timestamp = Instant.now().toString();
		try (LockRegistry factory = new LockRegistry(context.connectionFactory());
				StatefulRedisConnection<byte[], byte[]> floorConnection = context.connectLettuce()) {
			Library redisKit = new Library("redis-kit",
					(name) -> LockCycle.of(factory.getLock("bench:redis-kit:" + name)));
			Library redisson = new Library("redisson",
					(name) -> LockCycle.of(context.redisson().getLock("bench:redisson:" + name)));
			LockScriptFloor floorScripts = new LockScriptFloor(floorConnection);
			Library floor = new Library(FLOOR, (name) -> floorScripts.lock("bench:" + FLOOR + ":" + name));
			Map<String, Run> uncontended = runEach(context, UNCONTENDED, List.of(redisKit, redisson, floor),
					(library) -> uncontended(context, library));
			System.out.println(throughputLine(UNCONTENDED, uncontended, context.cpu(UNCONTENDED)));
			Map<String, Run> contended = runEach(context, CONTENDED, List.of(redisson, redisKit),
					(library) -> contended(context, library));
			System.out.println(throughputLine(CONTENDED, contended, context.cpu(CONTENDED)));
			System.out.println(handoffLine(contended));

			writeResults(context, timestamp, List.of(redisKit.name(), redisson.name(), floor.name()),
					Map.of(UNCONTENDED, uncontended, CONTENDED, contended));
		}
	}

	private Run uncontended(BenchmarkContext context, Library library) throws InterruptedException {
		List<LockCycle> locks = new ArrayList<>();
		for (int i = 0; i < context.options().threads(); i++) {
			locks.add(library.lock("uncontended:" + i));
		}
		ConcurrentLoad load = context.load(UNCONTENDED + " " + library.name());
		Outcome outcome = load.run((thread) -> {
			LockCycle lock = locks.get(thread);
			lock.lock();
			lock.unlock();
		});
		return new Run(outcome, 0, null);
	}

	private Run contended(BenchmarkContext context, Library library) throws InterruptedException {
		LockCycle lock = library.lock("contended");
		HandoffRecorder handoffs = new HandoffRecorder(new LatencySample(HANDOFF_SAMPLE_CAPACITY));
		AtomicInteger holders = new AtomicInteger();
		LongAdder overlaps = new LongAdder();
		ConcurrentLoad load = context.load(CONTENDED + " " + library.name());
		Outcome outcome = load.run((thread) -> {
			lock.lock();
			long acquiredAt = System.nanoTime();
			if (holders.incrementAndGet() != 1) {
				overlaps.increment();
			}
			handoffs.acquired(thread, acquiredAt, load.isMeasuring());
			holders.decrementAndGet();
			handoffs.releasing();
			lock.unlock();
		});
		if (overlaps.sum() > 0) {
			context.reportAnomaly(CONTENDED + " " + library.name() + ": " + overlaps.sum()
					+ " times a thread got the lock while another thread still held it", null);
		}
		return new Run(outcome, overlaps.sum(), handoffs);
	}

	private void writeResults(BenchmarkContext context, String timestamp, List<String> libraries,
			Map<String, Map<String, Run>> runsByScenario) throws Exception {
		Path directory = context.options().outputDirectory();
		List<String> scenarios = List.of(UNCONTENDED, CONTENDED);
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("benchmark", name());
		json.put("timestamp", timestamp);
		json.putAll(context.environment());
		List<Object> scenarioJson = new ArrayList<>();
		Map<String, List<? extends Number>> chartSeries = new LinkedHashMap<>();
		for (String library : libraries) {
			List<Long> opsPerSecond = new ArrayList<>();
			for (String scenario : scenarios) {
				Run run = runsByScenario.get(scenario).get(library);
				// A bar of 0 where the floor has no such scenario, rather than none, keeps the groups aligned.
				opsPerSecond.add((run != null) ? Math.round(run.opsPerSecond()) : 0L);
			}
			chartSeries.put(library, opsPerSecond);
		}
		for (String scenario : scenarios) {
			Map<String, Run> runs = runsByScenario.get(scenario);
			Map<String, Object> entry = new LinkedHashMap<>();
			entry.put("scenario", scenario);
			double ratio = ratio(runs);
			entry.put("ratio", twoDecimals(ratio));
			if (runs.containsKey(FLOOR)) {
				entry.put("floorOpsPerSecond", Math.round(runs.get(FLOOR).opsPerSecond()));
				entry.put("ofFloor", twoDecimals(ofFloor(runs)));
			}
			CpuFigures cpu = context.cpu(scenario);
			entry.put("clientCpuRatio", twoDecimals(cpu.clientRatio("redisson")));
			entry.put("cpuRatio", twoDecimals(cpu.totalRatio("redisson")));
			Map<String, Object> byLibrary = new LinkedHashMap<>();
			for (String library : libraries) {
				if (runs.containsKey(library)) {
					Map<String, Object> figures = runs.get(library).toJson();
					figures.putAll(cpu.toJson(library));
					byLibrary.put(library, figures);
				}
			}
			entry.put("libraries", byLibrary);
			scenarioJson.add(entry);
		}
		json.put("scenarios", scenarioJson);
		Path jsonFile = directory.resolve(name() + ".json");
		JsonWriter.write(jsonFile, json);
		Path chartFile = directory.resolve(name() + ".png");
		OpsChart.write(chartFile, "Lock: lock() + unlock() pairs per second, " + context.options().threads()
				+ " threads, Redis " + context.redisVersion(), scenarios, chartSeries);
		context.progress("Wrote " + jsonFile + " and " + chartFile);
	}

	/**
	 * Runs each library for the run's rounds ({@link BenchmarkContext#medianRounds}: the floor next to redis-kit) and
	 * keeps each one's median round.
	 */
	private static Map<String, Run> runEach(BenchmarkContext context, String scenarioName, List<Library> libraries,
			Scenario scenario) throws Exception {
		Map<String, Library> byName = new LinkedHashMap<>();
		libraries.forEach((library) -> byName.put(library.name(), library));
		Map<String, Run> medians = new LinkedHashMap<>();
		context.medianRounds(scenarioName, List.copyOf(byName.keySet()), (name) -> scenario.run(byName.get(name)),
				Run::opsPerSecond)
			.forEach((name, median) -> medians.put(name, median.round().withSpread(median.spread())));
		return medians;
	}

	private static String throughputLine(String scenario, Map<String, Run> runs, CpuFigures cpu) {
		String line = String.format(Locale.ROOT, "%s redis-kit=%d redisson=%d ratio=%.2f", scenario,
				Math.round(runs.get("redis-kit").opsPerSecond()), Math.round(runs.get("redisson").opsPerSecond()),
				ratio(runs));
		if (runs.containsKey(FLOOR)) {
			line += String.format(Locale.ROOT, " floor=%d ", Math.round(runs.get(FLOOR).opsPerSecond()))
					+ Spread.ofFloorToken(runs.get("redis-kit").spread(), runs.get(FLOOR).spread());
		}
		Map<String, Spread> spreads = new LinkedHashMap<>();
		runs.forEach((library, run) -> spreads.put(library, run.spread()));
		return line + " " + Spread.token(spreads) + " " + cpu.token("redisson");
	}

	private static String handoffLine(Map<String, Run> runs) {
		return CONTENDED + ".handoff redis-kit=" + percentiles(runs.get("redis-kit")) + " redisson="
				+ percentiles(runs.get("redisson"));
	}

	private static String percentiles(Run run) {
		double[] micros = run.handoffMicros();
		return "p50 " + micros(micros[0]) + "us p99 " + micros(micros[1]) + "us";
	}

	private static String micros(double value) {
		return Double.isNaN(value) ? "n/a" : Long.toString(Math.round(value));
	}

	private static double ratio(Map<String, Run> runs) {
		return runs.get("redis-kit").opsPerSecond() / runs.get("redisson").opsPerSecond();
	}

	/**
	 * How much of the same scripts' bare {@code EVALSHA} rate redis-kit reaches: the median of the rounds' ratios,
	 * each round's against the floor's round run next to it.
	 */
	private static double ofFloor(Map<String, Run> runs) {
		return Spread.paired(runs.get("redis-kit").spread(), runs.get(FLOOR).spread()).median();
	}

	private static double twoDecimals(double value) {
		return Double.isFinite(value) ? Math.round(value * 100) / 100.0 : value;
	}

	/** One library's way to get a lock by name. */
	private record Library(String name, Function<String, LockCycle> locks) {

		LockCycle lock(String name) {
			return this.locks.apply(name);
		}

	}

	/** One scenario, run for one library. */
	@FunctionalInterface
	private interface Scenario {

		Run run(Library library) throws InterruptedException;

	}

	/** What one library did in one scenario. */
	private record Run(Outcome outcome, long overlaps, @Nullable HandoffRecorder handoffs, Spread spread) {

		Run(Outcome outcome, long overlaps, @Nullable HandoffRecorder handoffs) {
			this(outcome, overlaps, handoffs, Spread.of(outcome.opsPerSecond()));
		}

		Run withSpread(Spread spread) {
			return new Run(this.outcome, this.overlaps, this.handoffs, spread);
		}

		double opsPerSecond() {
			return this.outcome.opsPerSecond();
		}

		double[] handoffMicros() {
			return (this.handoffs != null) ? this.handoffs.latencies().percentilesMicros(50, 99)
					: new double[] { Double.NaN, Double.NaN };
		}

		Map<String, Object> toJson() {
			Map<String, Object> json = new LinkedHashMap<>();
			json.put("opsPerSecond", Math.round(opsPerSecond()));
			json.put("opsPerSecondByRound", this.spread.rounds().stream().map(Math::round).toList());
			this.spread.addTo(json);
			json.put("operations", this.outcome.operations());
			json.put("measuredSeconds", this.outcome.measured().toMillis() / 1000.0);
			json.put("errors", this.outcome.errors());
			json.put("hungThreads", this.outcome.hungThreads());
			if (this.handoffs != null) {
				double[] micros = handoffMicros();
				json.put("overlaps", this.overlaps);
				json.put("acquisitions", this.handoffs.acquisitions());
				json.put("handoffs", this.handoffs.latencies().count());
				json.put("handoffP50Micros", oneDecimal(micros[0]));
				json.put("handoffP99Micros", oneDecimal(micros[1]));
			}
			return json;
		}

		/** Rounds for the file; NaN, for no samples, stays NaN and is written as {@code null}. */
		private static double oneDecimal(double value) {
			return Double.isNaN(value) ? value : Math.round(value * 10) / 10.0;
		}

	}

}
