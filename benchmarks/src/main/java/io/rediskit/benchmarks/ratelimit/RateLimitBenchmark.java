package io.rediskit.benchmarks.ratelimit;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.rediskit.benchmarks.Benchmark;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.ConcurrentLoad;
import io.rediskit.benchmarks.ConcurrentLoad.Outcome;
import io.rediskit.benchmarks.JsonWriter;
import io.rediskit.benchmarks.OpsChart;
import io.rediskit.benchmarks.Spread;
import io.rediskit.benchmarks.ratelimit.AdmissionsChart.Panel;
import io.rediskit.benchmarks.CpuMeter;
import io.rediskit.benchmarks.CpuMeter.Cost;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimitListener;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimiter;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.support.KeyNaming;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * {@code ratelimit}: redis-kit's {@link RateLimiter}, once per {@link RateLimitAlgorithm}, against Redisson's
 * {@code RRateLimiter} (a log of permits over a sliding interval) and, for the token bucket, Bucket4j on
 * Lettuce (compare-and-swap of the serialized bucket), each next to its same-script floor.
 * <ul>
 * <li>{@code ratelimit.<algorithm>}: {@code tryAcquire()} of one permit on a key picked at random among
 * {@value #KEYS} per limiter, with a limit of {@value #THROUGHPUT_LIMIT} per second per key, so nearly every
 * call is admitted and the cost measured is the decision itself. Redisson gets one {@code RRateLimiter} per
 * key, Bucket4j one bucket per key, all created before the load starts. The floor ({@code lettuce-evalsha},
 * {@link ScriptFloor}) runs the algorithm's own script by a bare Lettuce {@code EVALSHA} with the arguments
 * redis-kit sends, on one shared connection, keys picked the same way among keys of its own; redis-kit's
 * figure over it ({@code of-floor}) is what the limiter keeps of the driver's rate. Rounds and medians as in
 * the lock benchmark; each algorithm runs against its own Redisson and floor rounds, so every ratio compares
 * runs made minutes apart at most. Before the first scenario each library and the floor run the load once
 * unmeasured, so that the first scenario does not meet colder code than the last. Each run also records the
 * processor time per call of this JVM and of the server ({@link CpuMeter}), which a shared machine disturbs
 * less than throughput.</li>
 * <li>{@value #ASYNC}: the same keys and limit through the async APIs: redis-kit's
 * {@code tryAcquireAsync(key)} on its token bucket ({@link #ASYNC_ALGORITHM} says why that algorithm),
 * Redisson's {@code RRateLimiter.tryAcquireAsync()}, and the token bucket's script by Lettuce's async
 * {@code EVALSHA}. Every thread asks without waiting while fewer than {@value #ASYNC_IN_FLIGHT} decisions are
 * in flight across all threads; decisions are counted as they complete in the window. One unmeasured pass of
 * each first.</li>
 * <li>{@code ratelimit.empty-script}: a bare Lettuce {@code EVALSHA} of {@code return 1} on one connection, the
 * least any script call costs from this JVM; a reference, not the floor of any limiter.</li>
 * <li>{@code ratelimit.<limiter>-contended}: every thread on one key limited to {@value #CONTENDED_LIMIT} per
 * second for the measured duration, from empty state; the permits admitted divided by the most the algorithm
 * allows between two readings of the server's {@code TIME} around the load (see {@link AdmissionBound}).
 * Above 1 the limiter admitted more than it promises.</li>
 * <li>Admissions over time: every limiter under the same bursty load on one key, limited to
 * {@value #BURSTY_LIMIT} per second; the threads call for {@code 300 ms} then pause for {@code 700 ms}, and
 * calls and admissions are counted per {@code 50 ms} of client time since the first call.</li>
 * </ul>
 * Limiter names carry the library name, so no two libraries share a key. Every redis-kit decision reached
 * through the failure policy (Redis did not answer) is reported as an error, not counted as an admission.
 */
public final class RateLimitBenchmark implements Benchmark {

	/** Prefix of every scenario name. */
	public static final String PREFIX = "ratelimit.";

	static final int KEYS = 1000;

	static final long THROUGHPUT_LIMIT = 10_000;

	static final long CONTENDED_LIMIT = 200;

	static final long BURSTY_LIMIT = 100;

	/** Decisions of {@value #ASYNC} in flight at most, across all threads. */
	static final int ASYNC_IN_FLIGHT = 64;

	static final Duration PERIOD = Duration.ofSeconds(1);

	/** Asks without waiting: the async API of each library, {@value #ASYNC_IN_FLIGHT} decisions in flight. */
	private static final String ASYNC = PREFIX + "async";

	/**
	 * redis-kit's algorithm in {@value #ASYNC}. Redisson's {@code RRateLimiter} is configured as a token bucket
	 * ({@code rate} permits per interval) and keeps one: a count of available permits that starts full at
	 * {@code rate}, has no burst beyond it and refills as permits handed out grow one interval old. redis-kit's
	 * token bucket with its default burst (the limit) is the same contract over the same kind of state.
	 */
	private static final RateLimitAlgorithm ASYNC_ALGORITHM = RateLimitAlgorithm.TOKEN_BUCKET;

	private static final Duration BURSTY_DURATION = Duration.ofSeconds(6);

	private static final Duration BURST_ON = Duration.ofMillis(300);

	private static final Duration BURST_CYCLE = Duration.ofSeconds(1);

	private static final Duration BUCKET = Duration.ofMillis(50);

	private static final String REDIS_KIT = "redis-kit";

	private static final String REDISSON = "redisson";

	private static final String BUCKET4J = "bucket4j";

	private static final String LETTUCE = "lettuce-evalsha";

	// Redisson and Bucket4j decide on the client's clock, in whole milliseconds.
	private static final long MILLISECOND_MICROS = 1000;

	@Override
	public String name() {
		return "ratelimit";
	}

	@Override
	public void run(BenchmarkContext context) throws Exception {
		String timestamp = Instant.now().toString();
		RateLimiterRegistry registry = new RateLimiterRegistry(context.connectionFactory(), KeyNaming.defaults(),
				RateLimitListener.NONE);
		try (StatefulRedisConnection<byte[], byte[]> lettuce = context.connectLettuce();
				StatefulRedisConnection<byte[], byte[]> floorConnection = context.connectLettuce()) {
			ScriptFloor floor = new ScriptFloor(floorConnection);
			ProxyManager<byte[]> buckets = Bucket4jLettuce.casBasedBuilder(lettuce)
				.expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(PERIOD))
				.build();
			int rounds = context.options().rounds();
			List<RedisKitContender> redisKit = new ArrayList<>();
			for (RateLimitAlgorithm algorithm : RateLimitAlgorithm.values()) {
				redisKit.add(new RedisKitContender(registry, algorithm));
			}
			RedissonContender redisson = new RedissonContender(context.redisson());
			Contender bucket4j = new Bucket4jContender(buckets);

			List<Throughput> throughputs = new ArrayList<>();
			Throughput async;
			RedissonLimiter redissonLimiter = redisson.create("throughput", THROUGHPUT_LIMIT, KEYS);
			try {
				// Unmeasured: without it the first scenario would meet colder code than the last, Redisson's most.
				try (KeyedLimiter redisKitLimiter = redisKit.get(0).create("warmup", THROUGHPUT_LIMIT, KEYS);
						KeyedLimiter bucket4jLimiter = bucket4j.create("warmup", THROUGHPUT_LIMIT, KEYS)) {
					throughput(context, PREFIX + "jit-warmup", REDIS_KIT, redisKitLimiter);
					throughput(context, PREFIX + "jit-warmup", REDISSON, redissonLimiter);
					throughput(context, PREFIX + "jit-warmup", BUCKET4J, bucket4jLimiter);
					throughput(context, PREFIX + "jit-warmup", LETTUCE,
							floor.create(redisKit.get(0).algorithm(), floorName(redisKit.get(0), "warmup"),
									THROUGHPUT_LIMIT, KEYS));
				}
				for (RedisKitContender contender : redisKit) {
					String scenario = PREFIX + contender.algorithmName();
					Map<String, KeyedLimiter> libraries = new LinkedHashMap<>();
					libraries.put(REDIS_KIT, contender.create("throughput", THROUGHPUT_LIMIT, KEYS));
					libraries.put(REDISSON, redissonLimiter);
					libraries.put(LETTUCE, floor.create(contender.algorithm(), floorName(contender, "throughput"),
							THROUGHPUT_LIMIT, KEYS));
					if (contender.algorithm() == RateLimitAlgorithm.TOKEN_BUCKET) {
						libraries.put(BUCKET4J, bucket4j.create("throughput", THROUGHPUT_LIMIT, KEYS));
					}
					Map<String, Run> runs = runEach(context, scenario, libraries, rounds,
							(library, limiter) -> throughput(context, scenario, library, limiter));
					Throughput throughput = new Throughput(scenario, contender.algorithm(), runs);
					throughputs.add(throughput);
					System.out.println(throughput.line());
				}
				async = async(context, redisKit, redissonLimiter, floor);
				System.out.println(async.line() + " algorithm=" + algorithmName(ASYNC_ALGORITHM) + " in-flight="
						+ ASYNC_IN_FLIGHT);
			}
			finally {
				redissonLimiter.close();
			}
			Map<String, Run> emptyScript = runEach(context, PREFIX + "empty-script", Map.of(LETTUCE, floorConnection), rounds,
					(library, connection) -> emptyScript(context, connection));
			System.out.println(emptyScriptLine(emptyScript.get(LETTUCE), throughputs));

			List<Contender> all = new ArrayList<>(redisKit);
			all.add(redisson);
			all.add(bucket4j);
			List<Admission> contended = new ArrayList<>();
			for (Contender contender : all) {
				Admission admission = contended(context, contender);
				contended.add(admission);
				System.out.println(admission.line());
			}

			List<Contender> bursty = new ArrayList<>(redisKit);
			bursty.add(redisson);
			List<Burst> bursts = new ArrayList<>();
			for (Contender contender : bursty) {
				bursts.add(bursty(context, contender));
			}
			writeResults(context, timestamp, throughputs, async, emptyScript.get(LETTUCE), contended, bursts);
		}
	}

	private Run throughput(BenchmarkContext context, String scenario, String library, KeyedLimiter limiter)
			throws InterruptedException {
		LongAdder admitted = new LongAdder();
		LongAdder rejected = new LongAdder();
		LongAdder calls = new LongAdder();
		ConcurrentLoad load = context.load(scenario + " " + library);
		CpuMeter cpu = CpuMeter.start(context);
		Outcome outcome = load.run((thread) -> {
			boolean allowed = limiter.tryAcquire(ThreadLocalRandom.current().nextInt(KEYS));
			calls.increment();
			if (load.isMeasuring()) {
				(allowed ? admitted : rejected).increment();
			}
		});
		return new Run(outcome, admitted.sum(), rejected.sum(), cpu.stop(calls.sum()));
	}

	/**
	 * {@value #ASYNC}: redis-kit's {@code tryAcquireAsync(key)} against Redisson's {@code tryAcquireAsync()} and
	 * the same script's async {@code EVALSHA}, after one unmeasured pass of each.
	 */
	private Throughput async(BenchmarkContext context, List<RedisKitContender> redisKit,
			RedissonLimiter redissonLimiter, ScriptFloor floor) throws Exception {
		RedisKitContender contender = redisKit.stream()
			.filter((candidate) -> candidate.algorithm() == ASYNC_ALGORITHM)
			.findFirst()
			.orElseThrow();
		Map<String, AsyncKeyedLimiter> libraries = new LinkedHashMap<>();
		libraries.put(REDIS_KIT, contender.create("async", THROUGHPUT_LIMIT, KEYS));
		libraries.put(REDISSON, redissonLimiter);
		libraries.put(LETTUCE, floor.create(ASYNC_ALGORITHM, floorName(contender, "async"), THROUGHPUT_LIMIT, KEYS));
		for (Map.Entry<String, AsyncKeyedLimiter> library : libraries.entrySet()) {
			asyncThroughput(context, PREFIX + "async-jit-warmup", library.getKey(), library.getValue());
		}
		Map<String, Run> runs = runEach(context, ASYNC, libraries, context.options().rounds(),
				(library, limiter) -> asyncThroughput(context, ASYNC, library, limiter));
		return new Throughput(ASYNC, ASYNC_ALGORITHM, runs);
	}

	/**
	 * Every thread asks without waiting for the answer, as long as fewer than {@value #ASYNC_IN_FLIGHT}
	 * decisions are in flight across all threads; decisions are counted as they complete in the window.
	 */
	private Run asyncThroughput(BenchmarkContext context, String scenario, String library, AsyncKeyedLimiter limiter)
			throws InterruptedException {
		String label = scenario + " " + library;
		Semaphore inFlight = new Semaphore(ASYNC_IN_FLIGHT);
		LongAdder admitted = new LongAdder();
		LongAdder rejected = new LongAdder();
		LongAdder completed = new LongAdder();
		LongAdder failed = new LongAdder();
		AtomicReference<@Nullable Throwable> firstFailure = new AtomicReference<>();
		ConcurrentLoad load = context.load(label);
		CpuMeter cpu = CpuMeter.start(context);
		Outcome issued = load.run((thread) -> {
			inFlight.acquire();
			CompletionStage<Boolean> decision;
			try {
				decision = limiter.tryAcquireAsync(ThreadLocalRandom.current().nextInt(KEYS));
			}
			catch (RuntimeException ex) {
				inFlight.release();
				throw ex;
			}
			decision.whenComplete((allowed, failure) -> {
				inFlight.release();
				completed.increment();
				if (failure != null) {
					failed.increment();
					firstFailure.compareAndSet(null, failure);
				}
				else if (load.isMeasuring()) {
					(allowed ? admitted : rejected).increment();
				}
			});
		});
		// The next run starts on quiet connections: wait for the last answers.
		if (!inFlight.tryAcquire(ASYNC_IN_FLIGHT, 60, TimeUnit.SECONDS)) {
			context.reportAnomaly(label + ": " + (ASYNC_IN_FLIGHT - inFlight.availablePermits())
					+ " decisions still unanswered 60s after the window closed", null);
		}
		Cost cost = cpu.stop(completed.sum());
		if (failed.sum() > 0) {
			context.reportAnomaly(label + ": " + failed.sum() + " decisions completed exceptionally",
					firstFailure.get());
		}
		Outcome answered = new Outcome(admitted.sum() + rejected.sum(), issued.measured(),
				issued.errors() + failed.sum(), issued.hungThreads(), cost);
		return new Run(answered, admitted.sum(), rejected.sum(), cost);
	}

	private Run emptyScript(BenchmarkContext context, StatefulRedisConnection<byte[], byte[]> lettuce)
			throws InterruptedException {
		RedisCommands<byte[], byte[]> commands = lettuce.sync();
		String sha = commands.scriptLoad("return 1");
		byte[] key = "bench:lettuce:empty-script".getBytes(StandardCharsets.UTF_8);
		LongAdder calls = new LongAdder();
		ConcurrentLoad load = context.load(PREFIX + "empty-script " + LETTUCE);
		CpuMeter cpu = CpuMeter.start(context);
		Outcome outcome = load.run((thread) -> {
			commands.evalsha(sha, ScriptOutputType.INTEGER, key);
			calls.increment();
		});
		return new Run(outcome, 0, 0, cpu.stop(calls.sum()));
	}

	private Admission contended(BenchmarkContext context, Contender contender) throws Exception {
		String label = PREFIX + contender.label() + "-contended";
		try (KeyedLimiter limiter = contender.create("contended", CONTENDED_LIMIT, 1)) {
			LongAdder admitted = new LongAdder();
			LongAdder calls = new LongAdder();
			long start = serverMicros(context);
			ConcurrentLoad load = context.load(label, Duration.ZERO, context.options().duration());
			Outcome outcome = load.run((thread) -> {
				calls.increment();
				if (limiter.tryAcquire(0)) {
					admitted.increment();
				}
			});
			long end = serverMicros(context);
			Admission admission = new Admission(label, contender, CONTENDED_LIMIT, admitted.sum(), calls.sum(),
					outcome.errors(), contender.bound(CONTENDED_LIMIT, start, end), end - start);
			if (admission.ratio() > 1) {
				context.reportAnomaly(label + ": admitted " + admission.admitted() + " permits where at most "
						+ Math.floor(admission.bound()) + " are allowed", null);
			}
			return admission;
		}
	}

	private Burst bursty(BenchmarkContext context, Contender contender) throws Exception {
		String label = PREFIX + contender.label() + "-bursty";
		int buckets = (int) (BURSTY_DURATION.toMillis() / BUCKET.toMillis());
		long on = BURST_ON.toNanos();
		long cycle = BURST_CYCLE.toNanos();
		long bucket = BUCKET.toNanos();
		try (KeyedLimiter limiter = contender.create("bursty", BURSTY_LIMIT, 1)) {
			AtomicLongArray admitted = new AtomicLongArray(buckets);
			AtomicLongArray offered = new AtomicLongArray(buckets);
			// The pattern starts at the first call, so thread start-up does not shorten the first burst.
			AtomicLong origin = new AtomicLong(Long.MIN_VALUE);
			LongAdder total = new LongAdder();
			long start = serverMicros(context);
			ConcurrentLoad load = context.load(label, Duration.ZERO, BURSTY_DURATION);
			load.run((thread) -> {
				long now = System.nanoTime();
				origin.compareAndSet(Long.MIN_VALUE, now);
				long elapsed = now - origin.get();
				long inCycle = elapsed % cycle;
				if (inCycle >= on) {
					TimeUnit.NANOSECONDS.sleep(cycle - inCycle);
					return;
				}
				boolean allowed = limiter.tryAcquire(0);
				if (allowed) {
					total.increment();
				}
				int index = (int) (elapsed / bucket);
				if (index < buckets) {
					offered.incrementAndGet(index);
					if (allowed) {
						admitted.incrementAndGet(index);
					}
				}
			});
			long end = serverMicros(context);
			return new Burst(contender.label(), toArray(admitted), toArray(offered), total.sum(),
					contender.bound(BURSTY_LIMIT, start, end));
		}
	}

	private void writeResults(BenchmarkContext context, String timestamp, List<Throughput> throughputs,
			Throughput async, Run emptyScript, List<Admission> contended, List<Burst> bursts) throws Exception {
		Path directory = context.options().outputDirectory();
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("benchmark", name());
		json.put("timestamp", timestamp);
		json.putAll(context.environment());
		json.put("keysPerLimiter", KEYS);
		json.put("throughputLimitPerSecond", THROUGHPUT_LIMIT);
		List<Object> scenarioJson = new ArrayList<>();
		List<String> scenarios = new ArrayList<>();
		Map<String, List<Long>> chartSeries = new LinkedHashMap<>();
		for (String library : List.of(REDIS_KIT, REDISSON, BUCKET4J, LETTUCE)) {
			chartSeries.put(library, new ArrayList<>());
		}
		for (Throughput throughput : throughputs) {
			// The prefix is the same for all and would only make the labels run into each other.
			scenarios.add(throughput.scenario().substring(PREFIX.length()));
			Map<String, Object> entry = throughput.toJson();
			entry.put("ofEmptyScript", twoDecimals(throughput.opsPerSecond(REDIS_KIT) / emptyScript.opsPerSecond()));
			scenarioJson.add(entry);
			chartSeries.forEach((library, values) -> {
				Run run = throughput.runs().get(library);
				// A bar of 0 for a library that has no such algorithm, rather than none, keeps the groups aligned.
				values.add((run != null) ? Math.round(run.opsPerSecond()) : 0L);
			});
		}
		json.put("scenarios", scenarioJson);
		Map<String, Object> asyncJson = async.toJson();
		asyncJson.put("decisionsInFlight", ASYNC_IN_FLIGHT);
		json.put("async", asyncJson);
		Map<String, Object> emptyScriptRun = emptyScript.toJson();
		// Every call is the same script, not a decision.
		emptyScriptRun.remove("admitted");
		emptyScriptRun.remove("rejected");
		Map<String, Object> emptyScriptJson = new LinkedHashMap<>();
		emptyScriptJson.put("scenario", PREFIX + "empty-script");
		emptyScriptJson.put("libraries", Map.of(LETTUCE, emptyScriptRun));
		json.put("emptyScript", emptyScriptJson);
		json.put("overAdmission", contended.stream().map(Admission::toJson).toList());
		Map<String, Object> burstyJson = new LinkedHashMap<>();
		burstyJson.put("limitPerSecond", BURSTY_LIMIT);
		burstyJson.put("onMillis", BURST_ON.toMillis());
		burstyJson.put("offMillis", BURST_CYCLE.minus(BURST_ON).toMillis());
		burstyJson.put("bucketMillis", BUCKET.toMillis());
		burstyJson.put("limiters", bursts.stream().map(Burst::toJson).toList());
		json.put("bursty", burstyJson);
		Path jsonFile = directory.resolve(name() + ".json");
		JsonWriter.write(jsonFile, json);

		Path chartFile = directory.resolve(name() + ".png");
		OpsChart.write(chartFile, "Rate limiters: tryAcquire() per second, " + context.options().threads()
				+ " threads, " + KEYS + " keys, Redis " + context.redisVersion(), scenarios,
				new LinkedHashMap<>(chartSeries));
		Path admissionsFile = directory.resolve(name() + "-admissions.png");
		AdmissionsChart.write(admissionsFile, "Admissions under the same bursty load: " + context.options().threads()
				+ " threads, " + BURST_ON.toMillis() + " ms on / " + BURST_CYCLE.minus(BURST_ON).toMillis()
				+ " ms off, limit " + BURSTY_LIMIT + " per second, one key", BUCKET.toMillis(),
				bursts.stream().map(Burst::panel).toList());
		context.progress("Wrote " + jsonFile + ", " + chartFile + " and " + admissionsFile);
	}

	/**
	 * Runs each library {@code rounds} times, in {@link BenchmarkContext#roundOrder the round order} (the floor next
	 * to redis-kit), and keeps each one's median round.
	 */
	private static <T> Map<String, Run> runEach(BenchmarkContext context, String scenarioName,
			Map<String, T> libraries, int rounds, Scenario<T> scenario) throws Exception {
		Map<String, List<Run>> runs = new LinkedHashMap<>();
		for (int round = 0; round < rounds; round++) {
			for (String library : BenchmarkContext.roundOrder(List.copyOf(libraries.keySet()), round)) {
				runs.computeIfAbsent(library, (name) -> new ArrayList<>())
					.add(scenario.run(library, libraries.get(library)));
			}
		}
		Map<String, Run> medians = new LinkedHashMap<>();
		for (String library : libraries.keySet()) {
			List<Run> all = runs.get(library);
			List<Run> sorted = new ArrayList<>(all);
			sorted.sort(Comparator.comparingDouble(Run::opsPerSecond));
			List<Cost> costs = new ArrayList<>(all.stream().map(Run::cpu).toList());
			costs.sort(Comparator.comparingDouble(Cost::totalMicros));
			medians.put(library, sorted.get(sorted.size() / 2)
				.withRounds(context.spread(scenarioName + " " + library, all.stream().map(Run::opsPerSecond).toList()),
						costs.get(costs.size() / 2)));
		}
		return medians;
	}

	private static String emptyScriptLine(Run emptyScript, List<Throughput> throughputs) {
		double lowest = Double.MAX_VALUE;
		double highest = 0;
		for (Throughput throughput : throughputs) {
			double fraction = throughput.opsPerSecond(REDIS_KIT) / emptyScript.opsPerSecond();
			lowest = Math.min(lowest, fraction);
			highest = Math.max(highest, fraction);
		}
		return String.format(Locale.ROOT, "%sempty-script %s=%d redis-kit=%.0f%%..%.0f%% of it %s", PREFIX, LETTUCE,
				Math.round(emptyScript.opsPerSecond()), lowest * 100, highest * 100, emptyScript.spread().token());
	}

	/** @return the algorithm as scenarios name it, such as {@code token-bucket} */
	private static String algorithmName(RateLimitAlgorithm algorithm) {
		return algorithm.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/** @return a limiter name for the floor's keys that no redis-kit limiter of the run has */
	private static String floorName(RedisKitContender contender, String scenario) {
		return "bench-floor-" + contender.algorithmName() + "-" + scenario;
	}

	private static long serverMicros(BenchmarkContext context) {
		try (RedisConnection connection = context.connectionFactory().getConnection()) {
			Long micros = connection.serverCommands().time(TimeUnit.MICROSECONDS);
			if (micros == null) {
				throw new IllegalStateException("TIME returned nothing");
			}
			return micros;
		}
	}

	private static long[] toArray(AtomicLongArray values) {
		long[] array = new long[values.length()];
		for (int i = 0; i < array.length; i++) {
			array[i] = values.get(i);
		}
		return array;
	}

	private static double twoDecimals(double value) {
		return Double.isFinite(value) ? Math.round(value * 100) / 100.0 : value;
	}

	private static double oneDecimal(double value) {
		return Double.isFinite(value) ? Math.round(value * 10) / 10.0 : value;
	}

	private static double threeDecimals(double value) {
		return Double.isFinite(value) ? Math.round(value * 1000) / 1000.0 : value;
	}

	/** A library, or one of redis-kit's algorithms, as a maker of limiters. */
	private interface Contender {

		/** @return the name in scenario lines and files, such as {@code token-bucket} or {@code redisson} */
		String label();

		/** @return the library and its algorithm, such as {@code redis-kit TOKEN_BUCKET} */
		String kind();

		/**
		 * Creates a limiter of {@code limit} permits per second, its keys at full capacity.
		 * @param scenario names the limiter
		 * @param limit permits per second per key
		 * @param keys how many keys
		 * @return the limiter
		 */
		KeyedLimiter create(String scenario, long limit, int keys);

		/**
		 * The most permits one key may be granted while the server clock moves from {@code startMicros} to
		 * {@code endMicros}, from full capacity.
		 * @param limit permits per second
		 * @param startMicros the server clock before the first call
		 * @param endMicros the server clock after the last call
		 * @return the bound
		 */
		double bound(long limit, long startMicros, long endMicros);

	}

	private record RedisKitContender(RateLimiterRegistry registry, RateLimitAlgorithm algorithm) implements Contender {

		/** @return the algorithm as scenarios name it, such as {@code token-bucket} */
		String algorithmName() {
			return RateLimitBenchmark.algorithmName(this.algorithm);
		}

		@Override
		public String label() {
			return algorithmName();
		}

		@Override
		public String kind() {
			return REDIS_KIT + " " + this.algorithm.name();
		}

		@Override
		public RedisKitLimiter create(String scenario, long limit, int keys) {
			RateLimiter limiter = this.registry.create("bench-" + algorithmName() + "-" + scenario,
					RateLimitSpec.of(this.algorithm, limit, PERIOD));
			String[] names = keyNames(keys);
			for (String name : names) {
				limiter.reset(name);
			}
			return new RedisKitLimiter(limiter, names);
		}

		@Override
		public double bound(long limit, long startMicros, long endMicros) {
			// The burst defaults to the limit.
			return AdmissionBound.of(this.algorithm, limit, limit, PERIOD.toNanos() / 1000, startMicros, endMicros);
		}

	}

	private record RedisKitLimiter(RateLimiter limiter, String[] names) implements KeyedLimiter, AsyncKeyedLimiter {

		@Override
		public boolean tryAcquire(int key) {
			return allowed(this.limiter.tryAcquire(this.names[key]));
		}

		@Override
		public CompletionStage<Boolean> tryAcquireAsync(int key) {
			return this.limiter.tryAcquireAsync(this.names[key]).thenApply(RedisKitLimiter::allowed);
		}

		private static boolean allowed(RateLimitDecision decision) {
			if (decision.fromFailurePolicy()) {
				// Thrown so that the load counts and reports it: a guess of the policy is no decision.
				throw new IllegalStateException("Redis did not answer; the failure policy decided");
			}
			return decision.allowed();
		}

	}

	private record RedissonContender(RedissonClient redisson) implements Contender {

		@Override
		public String label() {
			return REDISSON;
		}

		@Override
		public String kind() {
			return "Redisson RRateLimiter (a log of permits over a sliding interval, client milliseconds)";
		}

		@Override
		public RedissonLimiter create(String scenario, long limit, int keys) {
			RRateLimiter[] limiters = new RRateLimiter[keys];
			String[] names = keyNames(keys);
			for (int i = 0; i < keys; i++) {
				limiters[i] = this.redisson.getRateLimiter("bench:redisson:ratelimit:" + scenario + ":" + names[i]);
				limiters[i].delete();
				limiters[i].trySetRate(RateType.OVERALL, limit, PERIOD);
			}
			return new RedissonLimiter(limiters);
		}

		@Override
		public double bound(long limit, long startMicros, long endMicros) {
			// Redisson stamps permits with the client's milliseconds.
			return AdmissionBound.slidingLog(limit, PERIOD.toNanos() / 1000, MILLISECOND_MICROS, startMicros,
					endMicros);
		}

	}

	private record RedissonLimiter(RRateLimiter[] limiters) implements KeyedLimiter, AsyncKeyedLimiter {

		@Override
		public boolean tryAcquire(int key) {
			return this.limiters[key].tryAcquire();
		}

		@Override
		public CompletionStage<Boolean> tryAcquireAsync(int key) {
			return this.limiters[key].tryAcquireAsync();
		}

		@Override
		public void close() {
			// Redisson's limiters never expire unless told to, which would cost it work on every call.
			for (RRateLimiter limiter : this.limiters) {
				limiter.delete();
			}
		}

	}

	private record Bucket4jContender(ProxyManager<byte[]> buckets) implements Contender {

		@Override
		public String label() {
			return BUCKET4J;
		}

		@Override
		public String kind() {
			return "Bucket4j token bucket (compare-and-swap over Lettuce, client milliseconds)";
		}

		@Override
		public KeyedLimiter create(String scenario, long limit, int keys) {
			BucketConfiguration configuration = BucketConfiguration.builder()
				.addLimit((bandwidth) -> bandwidth.capacity(limit).refillGreedy(limit, PERIOD))
				.build();
			BucketProxy[] proxies = new BucketProxy[keys];
			String[] names = keyNames(keys);
			for (int i = 0; i < keys; i++) {
				byte[] key = ("bench:bucket4j:ratelimit:" + scenario + ":" + names[i]).getBytes(StandardCharsets.UTF_8);
				this.buckets.removeProxy(key);
				proxies[i] = this.buckets.builder().build(key, configuration);
			}
			return new KeyedLimiter() {

				@Override
				public boolean tryAcquire(int key) {
					return proxies[key].tryConsume(1);
				}

			};
		}

		@Override
		public double bound(long limit, long startMicros, long endMicros) {
			// A client millisecond read just after TIME may still be the tick before it: allow for one tick more.
			return AdmissionBound.of(RateLimitAlgorithm.TOKEN_BUCKET, limit, limit, PERIOD.toNanos() / 1000,
					startMicros - MILLISECOND_MICROS, endMicros);
		}

	}

	private static String[] keyNames(int keys) {
		String[] names = new String[keys];
		for (int i = 0; i < keys; i++) {
			names[i] = "k" + i;
		}
		return names;
	}

	/** One scenario, run once for one library. */
	@FunctionalInterface
	private interface Scenario<T> {

		Run run(String library, T subject) throws Exception;

	}

	/** What one library did in one throughput run. */
	private record Run(Outcome outcome, long admitted, long rejected, Cost cpu, Spread spread, Cost medianCpu) {

		Run(Outcome outcome, long admitted, long rejected, Cost cpu) {
			this(outcome, admitted, rejected, cpu, Spread.of(outcome.opsPerSecond()), cpu);
		}

		/** The run with every round's throughput and the round of median processor time per call. */
		Run withRounds(Spread spread, Cost medianCpu) {
			return new Run(this.outcome, this.admitted, this.rejected, this.cpu, spread, medianCpu);
		}

		double opsPerSecond() {
			return this.outcome.opsPerSecond();
		}

		Map<String, Object> toJson() {
			Map<String, Object> json = new LinkedHashMap<>();
			json.put("opsPerSecond", Math.round(opsPerSecond()));
			json.put("opsPerSecondByRound", this.spread.rounds().stream().map(Math::round).toList());
			this.spread.addTo(json);
			json.put("operations", this.outcome.operations());
			json.put("admitted", this.admitted);
			json.put("rejected", this.rejected);
			json.put("measuredSeconds", this.outcome.measured().toMillis() / 1000.0);
			json.put("errors", this.outcome.errors());
			json.put("hungThreads", this.outcome.hungThreads());
			json.put("clientCpuMicrosPerCall", oneDecimal(this.medianCpu.clientMicros()));
			json.put("serverCpuMicrosPerCall", oneDecimal(this.medianCpu.serverMicros()));
			return json;
		}

	}

	/** One algorithm's throughput scenario: the median run of each library. */
	private record Throughput(String scenario, RateLimitAlgorithm algorithm, Map<String, Run> runs) {

		double opsPerSecond(String library) {
			return this.runs.get(library).opsPerSecond();
		}

		double ratio(String library) {
			return opsPerSecond(REDIS_KIT) / opsPerSecond(library);
		}

		/** How many times more processor time, client and server together, a call of the library takes. */
		double cpuRatio(String library) {
			return this.runs.get(library).medianCpu().totalMicros() / this.runs.get(REDIS_KIT).medianCpu().totalMicros();
		}

		/**
		 * How much of the same script's bare {@code EVALSHA} rate redis-kit reaches: the median of the rounds'
		 * ratios, each against the floor's round run next to it.
		 */
		double ofFloor() {
			return Spread.paired(this.runs.get(REDIS_KIT).spread(), this.runs.get(LETTUCE).spread()).median();
		}

		String line() {
			String line = String.format(Locale.ROOT, "%s redis-kit=%d redisson=%d ratio=%.2f floor=%d of-floor=%.2f",
					this.scenario, Math.round(opsPerSecond(REDIS_KIT)), Math.round(opsPerSecond(REDISSON)),
					ratio(REDISSON), Math.round(opsPerSecond(LETTUCE)), ofFloor());
			if (this.runs.containsKey(BUCKET4J)) {
				line += String.format(Locale.ROOT, " bucket4j=%d bucket4j-ratio=%.2f",
						Math.round(opsPerSecond(BUCKET4J)), ratio(BUCKET4J));
			}
			Map<String, Spread> spreads = new LinkedHashMap<>();
			this.runs.forEach((library, run) -> spreads.put(library, run.spread()));
			return line + " " + Spread.token(spreads);
		}

		Map<String, Object> toJson() {
			Map<String, Object> json = new LinkedHashMap<>();
			json.put("scenario", this.scenario);
			json.put("algorithm", this.algorithm.name());
			json.put("ratio", twoDecimals(ratio(REDISSON)));
			if (this.runs.containsKey(BUCKET4J)) {
				json.put("ratioToBucket4j", twoDecimals(ratio(BUCKET4J)));
			}
			json.put("floorOpsPerSecond", Math.round(opsPerSecond(LETTUCE)));
			json.put("ofFloor", twoDecimals(ofFloor()));
			json.put("cpuRatio", twoDecimals(cpuRatio(REDISSON)));
			json.put("cpuOfFloor", twoDecimals(this.runs.get(REDIS_KIT).medianCpu().totalMicros()
					/ this.runs.get(LETTUCE).medianCpu().totalMicros()));
			Map<String, Object> byLibrary = new LinkedHashMap<>();
			this.runs.forEach((library, run) -> byLibrary.put(library, run.toJson()));
			json.put("libraries", byLibrary);
			return json;
		}

	}

	/** What one limiter admitted on one contended key, against what it may. */
	private record Admission(String scenario, Contender contender, long limit, long admitted, long calls,
			long errors, double bound, long spanMicros) {

		double ratio() {
			return this.admitted / this.bound;
		}

		String line() {
			return String.format(Locale.ROOT, "%s over-admission=%.3f admitted=%d bound=%d span=%.3fs calls=%d",
					this.scenario, ratio(), this.admitted, (long) Math.floor(this.bound), this.spanMicros / 1e6,
					this.calls);
		}

		Map<String, Object> toJson() {
			Map<String, Object> json = new LinkedHashMap<>();
			json.put("scenario", this.scenario);
			json.put("limiter", this.contender.label());
			json.put("kind", this.contender.kind());
			json.put("limitPerSecond", this.limit);
			json.put("admitted", this.admitted);
			json.put("bound", threeDecimals(this.bound));
			json.put("overAdmission", threeDecimals(ratio()));
			json.put("serverSpanSeconds", this.spanMicros / 1e6);
			json.put("calls", this.calls);
			json.put("errors", this.errors);
			return json;
		}

	}

	/** One limiter under the bursty load. */
	private record Burst(String limiter, long[] admitted, long[] offered, long totalAdmitted, double bound) {

		Panel panel() {
			return new Panel(this.limiter + " (" + this.totalAdmitted + " admitted, at most "
					+ (long) Math.floor(this.bound) + ")", this.admitted, this.offered);
		}

		Map<String, Object> toJson() {
			Map<String, Object> json = new LinkedHashMap<>();
			json.put("limiter", this.limiter);
			json.put("admitted", this.totalAdmitted);
			json.put("bound", threeDecimals(this.bound));
			json.put("overAdmission", threeDecimals(this.totalAdmitted / this.bound));
			json.put("admittedPerBucket", Arrays.stream(this.admitted).boxed().toList());
			json.put("offeredPerBucket", Arrays.stream(this.offered).boxed().toList());
			return json;
		}

	}

}
