package io.rediskit.benchmarks.lock;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.lettuce.core.api.StatefulRedisConnection;
import io.rediskit.benchmarks.Benchmark;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.ConcurrentLoad.Outcome;
import io.rediskit.benchmarks.CpuFigures;
import io.rediskit.benchmarks.JsonWriter;
import io.rediskit.benchmarks.MedianRound;
import io.rediskit.benchmarks.Spread;
import io.rediskit.latch.LatchRegistry;
import io.rediskit.latch.RedisCountDownLatch;
import io.rediskit.lock.RedisSemaphore;
import io.rediskit.lock.SemaphoreRegistry;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;

/**
 * {@code semaphore}: the semaphore's acquire + release pairs and the latch's count-downs, redis-kit beside
 * Redisson in the same run, with the same-script floor ({@code lettuce-evalsha}, {@link SemaphoreScriptFloor})
 * where one exists.
 * <ul>
 * <li>{@code semaphore.uncontended}: each thread has a semaphore of its own (total 1): one permit taken and given
 * back, never waiting. redis-kit (a lease renewed by the watchdog) beside Redisson's {@code RSemaphore} and
 * {@code RPermitExpirableSemaphore} (without a lease time, as redis-kit's default keeps the permit until it is
 * released), and the floor.</li>
 * <li>{@code semaphore.bound}: all threads share one semaphore whose total is half the threads, so half of them
 * wait at any time: pairs per second at the bound (the bound itself is checked by the tests, not here).</li>
 * <li>{@code latch.countdown}: count-downs of one latch set to a count no run reaches; redis-kit beside
 * {@code RCountDownLatch} and the floor.</li>
 * </ul>
 * Libraries run one after the other on the same server, several rounds, the order alternating; each library's
 * median round is reported. Names carry the library, so no two share a key.
 */
public final class SemaphoreBenchmark implements Benchmark {

	/** Each thread takes a permit of a semaphore of its own. */
	public static final String UNCONTENDED = "semaphore.uncontended";

	/** All threads share one semaphore of half as many permits. */
	public static final String BOUND = "semaphore.bound";

	/** Count-downs of one latch. */
	public static final String COUNTDOWN = "latch.countdown";

	private static final String FLOOR = "lettuce-evalsha";

	private static final long LATCH_COUNT = Long.MAX_VALUE / 2;

	@Override
	public String name() {
		return "semaphore";
	}

	@Override
	public void run(BenchmarkContext context) throws Exception {
		String timestamp = Instant.now().toString();
		int threads = context.options().threads();
		int bound = Math.max(1, threads / 2);
		String run = Long.toString(System.nanoTime(), 36);
		try (SemaphoreRegistry semaphores = new SemaphoreRegistry(context.connectionFactory());
				LatchRegistry latches = new LatchRegistry(context.connectionFactory());
				StatefulRedisConnection<byte[], byte[]> floorConnection = context.connectLettuce()) {
			SemaphoreScriptFloor floor = new SemaphoreScriptFloor(floorConnection);
			Map<String, Library> uncontended = new LinkedHashMap<>();
			uncontended.put("redis-kit", (thread) -> {
				RedisSemaphore semaphore = semaphores.getSemaphore("bench:redis-kit:" + run + ":" + thread, 1);
				return () -> semaphore.acquire(1, Duration.ZERO).close();
			});
			uncontended.put("redisson", (thread) -> {
				RSemaphore semaphore = context.redisson().getSemaphore("bench:redisson:" + run + ":" + thread);
				semaphore.trySetPermits(1);
				return () -> {
					semaphore.acquire();
					semaphore.release();
				};
			});
			uncontended.put("redisson-expirable", (thread) -> {
				RPermitExpirableSemaphore semaphore = context.redisson()
					.getPermitExpirableSemaphore("bench:redisson-expirable:" + run + ":" + thread);
				semaphore.trySetPermits(1);
				return () -> semaphore.release(semaphore.acquire());
			});
			uncontended.put(FLOOR, (thread) -> {
				String name = "bench:" + FLOOR + ":" + run + ":" + thread;
				return () -> floor.acquireAndRelease(name, 1);
			});
			Map<String, MedianRound<Outcome>> uncontendedRuns = runEach(context, UNCONTENDED, uncontended);
			System.out.println(line(UNCONTENDED, uncontendedRuns, context.cpu(UNCONTENDED)));

			Map<String, Library> atBound = new LinkedHashMap<>();
			RedisSemaphore shared = semaphores.getSemaphore("bench:redis-kit:" + run + ":bound", bound);
			atBound.put("redis-kit", (thread) -> () -> shared.acquire(1, Duration.ofMinutes(1)).close());
			RSemaphore sharedRedisson = context.redisson().getSemaphore("bench:redisson:" + run + ":bound");
			sharedRedisson.trySetPermits(bound);
			atBound.put("redisson", (thread) -> () -> {
				sharedRedisson.acquire();
				sharedRedisson.release();
			});
			RPermitExpirableSemaphore sharedExpirable = context.redisson()
				.getPermitExpirableSemaphore("bench:redisson-expirable:" + run + ":bound");
			sharedExpirable.trySetPermits(bound);
			atBound.put("redisson-expirable", (thread) -> () -> sharedExpirable.release(sharedExpirable.acquire()));
			Map<String, MedianRound<Outcome>> boundRuns = runEach(context, BOUND, atBound);
			System.out.println(line(BOUND, boundRuns, context.cpu(BOUND)));

			Map<String, Library> countDown = new LinkedHashMap<>();
			RedisCountDownLatch latch = latches.getCountDownLatch("bench:redis-kit:" + run + ":latch");
			latch.trySetCount(LATCH_COUNT);
			countDown.put("redis-kit", (thread) -> latch::countDown);
			RCountDownLatch redissonLatch = context.redisson().getCountDownLatch("bench:redisson:" + run + ":latch");
			redissonLatch.trySetCount(LATCH_COUNT);
			countDown.put("redisson", (thread) -> redissonLatch::countDown);
			String floorLatch = "bench:" + FLOOR + ":" + run + ":latch";
			latches.getCountDownLatch(floorLatch).trySetCount(LATCH_COUNT);
			countDown.put(FLOOR, (thread) -> () -> floor.countDown(floorLatch));
			Map<String, MedianRound<Outcome>> countDownRuns = runEach(context, COUNTDOWN, countDown);
			System.out.println(line(COUNTDOWN, countDownRuns, context.cpu(COUNTDOWN)));

			writeResults(context, timestamp,
					Map.of(UNCONTENDED, uncontendedRuns, BOUND, boundRuns, COUNTDOWN, countDownRuns));
		}
	}

	/**
	 * Runs each library for the run's rounds ({@link BenchmarkContext#medianRounds}: the floor next to redis-kit) and
	 * keeps each one's median round.
	 */
	private static Map<String, MedianRound<Outcome>> runEach(BenchmarkContext context, String scenario,
			Map<String, Library> libraries) throws Exception {
		return context.medianRounds(scenario, List.copyOf(libraries.keySet()),
				(library) -> runOnce(context, scenario, library, libraries.get(library)), Outcome::opsPerSecond);
	}

	private static Outcome runOnce(BenchmarkContext context, String scenario, String library, Library cycles)
			throws InterruptedException {
		List<Cycle> perThread = new ArrayList<>();
		for (int thread = 0; thread < context.options().threads(); thread++) {
			perThread.add(cycles.cycle(thread));
		}
		return context.load(scenario + " " + library).run((thread) -> perThread.get(thread).run());
	}

	private static String line(String scenario, Map<String, MedianRound<Outcome>> runs, CpuFigures cpu) {
		double redisKit = runs.get("redis-kit").round().opsPerSecond();
		StringBuilder line = new StringBuilder(scenario);
		Map<String, Spread> spreads = new LinkedHashMap<>();
		runs.forEach((library, median) -> {
			line.append(' ').append(library).append('=').append(Math.round(median.round().opsPerSecond()));
			spreads.put(library, median.spread());
		});
		line.append(String.format(Locale.ROOT, " ratio=%.2f", redisKit / runs.get("redisson").round().opsPerSecond()));
		if (runs.containsKey(FLOOR)) {
			line.append(' ').append(Spread.ofFloorToken(runs.get("redis-kit").spread(), runs.get(FLOOR).spread()));
		}
		return line.append(' ').append(Spread.token(spreads)).append(' ').append(cpu.token("redisson")).toString();
	}

	private void writeResults(BenchmarkContext context, String timestamp,
			Map<String, Map<String, MedianRound<Outcome>>> runs)
			throws Exception {
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("benchmark", name());
		json.put("timestamp", timestamp);
		json.putAll(context.environment());
		List<Object> scenarios = new ArrayList<>();
		for (String scenario : List.of(UNCONTENDED, BOUND, COUNTDOWN)) {
			Map<String, MedianRound<Outcome>> byLibrary = runs.get(scenario);
			Map<String, Object> entry = new LinkedHashMap<>();
			entry.put("scenario", scenario);
			CpuFigures cpu = context.cpu(scenario);
			entry.put("clientCpuRatio", Math.round(cpu.clientRatio("redisson") * 100) / 100.0);
			entry.put("cpuRatio", Math.round(cpu.totalRatio("redisson") * 100) / 100.0);
			double redisKit = byLibrary.get("redis-kit").round().opsPerSecond();
			entry.put("ratio", Math.round(redisKit / byLibrary.get("redisson").round().opsPerSecond() * 100) / 100.0);
			if (byLibrary.containsKey(FLOOR)) {
				Spread ofFloor = Spread.paired(byLibrary.get("redis-kit").spread(), byLibrary.get(FLOOR).spread());
				entry.put("ofFloor", Math.round(ofFloor.median() * 100) / 100.0);
				entry.put("ofFloorByRound", ofFloor.rounds());
			}
			Map<String, Object> libraries = new LinkedHashMap<>();
			byLibrary.forEach((library, median) -> {
				Outcome outcome = median.round();
				Map<String, Object> figures = new LinkedHashMap<>();
				figures.put("opsPerSecond", Math.round(outcome.opsPerSecond()));
				figures.put("operations", outcome.operations());
				figures.put("errors", outcome.errors());
				figures.put("hungThreads", outcome.hungThreads());
				figures.putAll(median.spread().toJson());
				figures.putAll(cpu.toJson(library));
				libraries.put(library, figures);
			});
			entry.put("libraries", libraries);
			scenarios.add(entry);
		}
		json.put("scenarios", scenarios);
		Path file = context.options().outputDirectory().resolve(name() + ".json");
		JsonWriter.write(file, json);
		context.progress("Wrote " + file);
	}

	/** One library's operation for one thread of a run. */
	@FunctionalInterface
	private interface Library {

		Cycle cycle(int thread);

	}

	/** One measured operation. */
	@FunctionalInterface
	private interface Cycle {

		void run() throws Exception;

	}

}
