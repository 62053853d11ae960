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
import io.rediskit.benchmarks.MedianRound;
import io.rediskit.benchmarks.Spread;
import io.rediskit.lock.FairLockRegistry;
import io.rediskit.lock.ReadWriteLockRegistry;

/**
 * {@code rwfair}: the read-write and fair locks' {@code lock()} + {@code unlock()} pairs, redis-kit against
 * Redisson's {@code RReadWriteLock} and {@code RFairLock} (watchdog defaults on both), with the same-script floor
 * ({@link ReadWriteFairScriptFloor}) where one exists.
 * <ul>
 * <li>{@code rwlock.read}: every thread reads one shared name; readers never wait for each other.</li>
 * <li>{@code rwlock.write}: each thread writes a name of its own, so nobody waits.</li>
 * <li>{@code fairlock.uncontended}: each thread takes a fair lock of its own.</li>
 * <li>{@code fairlock.contended}: all threads share one fair lock: pairs per second and the hand-off latency
 * (from the holder's {@code unlock()} to the return of {@code lock()} in the next thread). No floor: the floor
 * never waits. Overlapping holds are reported as an anomaly.</li>
 * </ul>
 * Each scenario runs every library for several rounds, alternating which goes first, and reports each one's
 * median round, as {@link LockBenchmark} does.
 */
public final class ReadWriteFairBenchmark implements Benchmark {

	static final String READ = "rwlock.read";

	static final String WRITE = "rwlock.write";

	static final String FAIR_UNCONTENDED = "fairlock.uncontended";

	static final String FAIR_CONTENDED = "fairlock.contended";

	private static final String FLOOR = "lettuce-evalsha";

	private static final int HANDOFF_SAMPLE_CAPACITY = 1 << 20;

	@Override
	public String name() {
		return "rwfair";
	}

	@Override
	public void run(BenchmarkContext context) throws Exception {
		String timestamp = Instant.now().toString();
		try (ReadWriteLockRegistry readWrite = new ReadWriteLockRegistry(context.connectionFactory());
				FairLockRegistry fair = new FairLockRegistry(context.connectionFactory());
				StatefulRedisConnection<byte[], byte[]> floorConnection = context.connectLettuce()) {
			ReadWriteFairScriptFloor floor = new ReadWriteFairScriptFloor(floorConnection);
			Map<String, Map<String, MedianRound<Outcome>>> results = new LinkedHashMap<>();
			Map<String, HandoffRecorder> handoffs = new LinkedHashMap<>();
			results.put(READ, runEach(context, READ, Map.of(
					"redis-kit", (name) -> LockCycle.of(readWrite.getReadWriteLock("bench:redis-kit:read").readLock()),
					"redisson", (name) -> LockCycle.of(context.redisson().getReadWriteLock("bench:redisson:read").readLock()),
					FLOOR, (name) -> floor.read("bench:floor:read")), null));
			results.put(WRITE, runEach(context, WRITE, Map.of(
					"redis-kit", (name) -> LockCycle.of(readWrite.getReadWriteLock("bench:redis-kit:" + name).writeLock()),
					"redisson", (name) -> LockCycle.of(context.redisson().getReadWriteLock("bench:redisson:" + name).writeLock()),
					FLOOR, (name) -> floor.write("bench:floor:" + name)), null));
			results.put(FAIR_UNCONTENDED, runEach(context, FAIR_UNCONTENDED, Map.of(
					"redis-kit", (name) -> LockCycle.of(fair.getLock("bench:redis-kit:" + name)),
					"redisson", (name) -> LockCycle.of(context.redisson().getFairLock("bench:redisson:" + name)),
					FLOOR, (name) -> floor.fair("bench:floor:" + name)), null));
			results.put(FAIR_CONTENDED, runEach(context, FAIR_CONTENDED, Map.of(
					"redis-kit", (name) -> LockCycle.of(fair.getLock("bench:redis-kit:contended")),
					"redisson", (name) -> LockCycle.of(context.redisson().getFairLock("bench:redisson:contended"))),
					handoffs));
			results.forEach((scenario, outcomes) -> System.out.println(line(scenario, outcomes, handoffs,
					context.cpu(scenario))));
			write(context, timestamp, results, handoffs);
		}
	}

	/**
	 * Runs every library's scenario for the run's rounds ({@link BenchmarkContext#medianRounds}: the floor next to
	 * redis-kit) and keeps each one's median.
	 * @param handoffs where the contended scenario's hand-offs of each library's median round go; {@code null} for
	 * each thread's own lock (or a shared read lock)
	 */
	private static Map<String, MedianRound<Outcome>> runEach(BenchmarkContext context, String scenario,
			Map<String, Function<String, LockCycle>> libraries, Map<String, HandoffRecorder> handoffs)
			throws Exception {
		List<String> names = new ArrayList<>(new java.util.TreeMap<>(libraries).keySet());
		Map<Outcome, HandoffRecorder> recorders = new java.util.IdentityHashMap<>();
		Map<String, MedianRound<Outcome>> medians = context.medianRounds(scenario, names,
				(library) -> (handoffs != null)
						? contended(context, scenario, library, libraries.get(library).apply("contended"), recorders)
						: own(context, scenario, library, libraries.get(library)),
				Outcome::opsPerSecond);
		if (handoffs != null) {
			medians.forEach((library, median) -> handoffs.put(library, recorders.get(median.round())));
		}
		return medians;
	}

	private static Outcome own(BenchmarkContext context, String scenario, String library,
			Function<String, LockCycle> locks) throws InterruptedException {
		List<LockCycle> perThread = new ArrayList<>();
		for (int i = 0; i < context.options().threads(); i++) {
			perThread.add(locks.apply("own:" + i));
		}
		ConcurrentLoad load = context.load(scenario + " " + library);
		return load.run((thread) -> {
			LockCycle lock = perThread.get(thread);
			lock.lock();
			lock.unlock();
		});
	}

	private static Outcome contended(BenchmarkContext context, String scenario, String library, LockCycle lock,
			Map<Outcome, HandoffRecorder> recorders) throws InterruptedException {
		HandoffRecorder recorder = new HandoffRecorder(new LatencySample(HANDOFF_SAMPLE_CAPACITY));
		AtomicInteger holders = new AtomicInteger();
		LongAdder overlaps = new LongAdder();
		ConcurrentLoad load = context.load(scenario + " " + library);
		Outcome outcome = load.run((thread) -> {
			lock.lock();
			long acquiredAt = System.nanoTime();
			if (holders.incrementAndGet() != 1) {
				overlaps.increment();
			}
			recorder.acquired(thread, acquiredAt, load.isMeasuring());
			holders.decrementAndGet();
			recorder.releasing();
			lock.unlock();
		});
		if (overlaps.sum() > 0) {
			context.reportAnomaly(scenario + " " + library + ": " + overlaps.sum()
					+ " times a thread got the lock while another thread still held it", null);
		}
		recorders.put(outcome, recorder);
		return outcome;
	}

	private static String line(String scenario, Map<String, MedianRound<Outcome>> outcomes,
			Map<String, HandoffRecorder> handoffs, CpuFigures cpu) {
		double redisKit = outcomes.get("redis-kit").round().opsPerSecond();
		double redisson = outcomes.get("redisson").round().opsPerSecond();
		String line = String.format(Locale.ROOT, "%s redis-kit=%d redisson=%d ratio=%.2f", scenario,
				Math.round(redisKit), Math.round(redisson), redisKit / redisson);
		if (outcomes.containsKey(FLOOR)) {
			line += String.format(Locale.ROOT, " floor=%d ", Math.round(outcomes.get(FLOOR).round().opsPerSecond()))
					+ Spread.ofFloorToken(outcomes.get("redis-kit").spread(), outcomes.get(FLOOR).spread());
		}
		if (FAIR_CONTENDED.equals(scenario) && !handoffs.isEmpty()) {
			for (String library : List.of("redis-kit", "redisson")) {
				double[] micros = handoffs.get(library).latencies().percentilesMicros(50, 99);
				line += String.format(Locale.ROOT, " %s-handoff-p50=%.0fus p99=%.0fus", library, micros[0], micros[1]);
			}
		}
		Map<String, Spread> spreads = new LinkedHashMap<>();
		outcomes.forEach((library, median) -> spreads.put(library, median.spread()));
		return line + " " + Spread.token(spreads) + " " + cpu.token("redisson");
	}

	private void write(BenchmarkContext context, String timestamp,
			Map<String, Map<String, MedianRound<Outcome>>> results,
			Map<String, HandoffRecorder> handoffs) throws Exception {
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("benchmark", name());
		json.put("timestamp", timestamp);
		json.putAll(context.environment());
		List<Object> scenarios = new ArrayList<>();
		results.forEach((scenario, outcomes) -> {
			Map<String, Object> entry = new LinkedHashMap<>();
			entry.put("scenario", scenario);
			CpuFigures cpu = context.cpu(scenario);
			entry.put("clientCpuRatio", Math.round(cpu.clientRatio("redisson") * 100) / 100.0);
			entry.put("cpuRatio", Math.round(cpu.totalRatio("redisson") * 100) / 100.0);
			Map<String, Object> byLibrary = new LinkedHashMap<>();
			outcomes.forEach((library, median) -> {
				Outcome outcome = median.round();
				Map<String, Object> figures = new LinkedHashMap<>();
				figures.put("opsPerSecond", Math.round(outcome.opsPerSecond()));
				figures.put("operations", outcome.operations());
				figures.put("errors", outcome.errors());
				figures.put("hungThreads", outcome.hungThreads());
				HandoffRecorder recorder = FAIR_CONTENDED.equals(scenario) ? handoffs.get(library) : null;
				if (recorder != null) {
					double[] micros = recorder.latencies().percentilesMicros(50, 99);
					figures.put("handoffP50Micros", Math.round(micros[0] * 10) / 10.0);
					figures.put("handoffP99Micros", Math.round(micros[1] * 10) / 10.0);
				}
				figures.putAll(median.spread().toJson());
				figures.putAll(cpu.toJson(library));
				byLibrary.put(library, figures);
			});
			entry.put("libraries", byLibrary);
			scenarios.add(entry);
		});
		json.put("scenarios", scenarios);
		Path file = context.options().outputDirectory().resolve(name() + ".json");
		JsonWriter.write(file, json);
		context.progress("Wrote " + file);
	}

}
