package io.rediskit.benchmarks.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.function.IntFunction;

import io.rediskit.benchmarks.Benchmark;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.ConcurrentLoad.Outcome;
import io.rediskit.benchmarks.JsonWriter;
import io.rediskit.benchmarks.Spread;
import io.rediskit.lock.LockRegistry;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitListener;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimiter;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.support.KeyNaming;
import io.rediskit.testsupport.RedisCluster;
import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@code cluster}: redis-kit and Redisson in cluster mode against a Redis Cluster of 3 masters and 3 replicas
 * started here on loopback ({@link RedisCluster}), both clients configured as an application would
 * (Spring's {@link RedisClusterConfiguration} over Lettuce; Redisson's {@code useClusterServers()}).
 * <ul>
 * <li>{@code cluster.lock.uncontended}: each thread locks and unlocks a name of its own, the names spread over
 * the three masters; redis-kit's {@link io.rediskit.lock.RedisLock} against Redisson's {@code RLock}.</li>
 * <li>{@code cluster.ratelimit}: each thread asks one key of its own for a permit (the limit is never reached,
 * so the cost is the decision); redis-kit's sliding log against Redisson's {@code RRateLimiter}, which is also
 * a log of permits over a sliding interval.</li>
 * </ul>
 * As in the other benchmarks, each scenario runs both libraries for several rounds, alternating which goes
 * first, and reports each one's median round and the ratio redis-kit / Redisson.
 */
public final class ClusterBenchmark implements Benchmark {

	/** Each thread locks a name of its own. */
	public static final String LOCK = "cluster.lock.uncontended";

	/** Each thread asks a key of its own. */
	public static final String RATE_LIMIT = "cluster.ratelimit";

	private static final Duration PERIOD = Duration.ofSeconds(1);

	private static final long LIMIT = 1_000_000_000L;

	@Override
	public String name() {
		return "cluster";
	}

	@Override
	public void run(BenchmarkContext context) throws Exception {
		String timestamp = Instant.now().toString();
		context.progress("Starting a Redis Cluster of 3 masters and 3 replicas");
		try (RedisCluster cluster = RedisCluster.start()) {
			LettuceConnectionFactory connections = new LettuceConnectionFactory(
					new RedisClusterConfiguration(cluster.nodeAddresses()),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
			connections.afterPropertiesSet();
			connections.start();
			Config config = new Config();
			config.useClusterServers()
				.addNodeAddress(cluster.nodeAddresses().stream().map((address) -> "redis://" + address).toArray(String[]::new));
			RedissonClient redisson = Redisson.create(config);
			try (LockRegistry locks = new LockRegistry(connections)) {
				int threads = context.options().threads();
				int rounds = context.options().rounds();
				Map<String, Spread> lock = runEach(context, LOCK, rounds, Map.of(
						"redis-kit", () -> lockRun(context, "redis-kit", (i) -> locks.getLock("bench:redis-kit:cluster:" + i)),
						"redisson", () -> lockRun(context, "redisson", (i) -> redisson.getLock("bench:redisson:cluster:" + i))));
				System.out.println(line(LOCK, lock) + " " + context.cpu(LOCK).clientToken("redisson"));

				RateLimiter limiter = new RateLimiterRegistry(connections, KeyNaming.defaults(), RateLimitListener.NONE)
					.create("bench-cluster", RateLimitSpec.of(RateLimitAlgorithm.SLIDING_LOG, LIMIT, PERIOD));
				List<RRateLimiter> redissonLimiters = new ArrayList<>();
				for (int i = 0; i < threads; i++) {
					RRateLimiter redissonLimiter = redisson.getRateLimiter("bench:redisson:cluster:ratelimit:" + i);
					redissonLimiter.delete();
					redissonLimiter.trySetRate(RateType.OVERALL, LIMIT, PERIOD);
					redissonLimiters.add(redissonLimiter);
				}
				Map<String, Spread> limits = runEach(context, RATE_LIMIT, rounds, Map.of(
						"redis-kit", () -> limitRun(context, "redis-kit", (i) -> limiter.tryAcquire("k" + i).allowed()),
						"redisson", () -> limitRun(context, "redisson", (i) -> redissonLimiters.get(i).tryAcquire())));
				System.out.println(line(RATE_LIMIT, limits) + " " + context.cpu(RATE_LIMIT).clientToken("redisson"));
				redissonLimiters.forEach(RRateLimiter::delete);

				Map<String, Object> json = new LinkedHashMap<>();
				json.put("benchmark", name());
				json.put("timestamp", timestamp);
				json.putAll(context.environment());
				json.put("topology", "Redis Cluster, 3 masters + 3 replicas on loopback");
				json.put("scenarios", List.of(scenario(LOCK, lock), scenario(RATE_LIMIT, limits)));
				Path file = context.options().outputDirectory().resolve(name() + ".json");
				JsonWriter.write(file, json);
				context.progress("Wrote " + file);
			}
			finally {
				redisson.shutdown();
				connections.destroy();
			}
		}
	}

	private static double lockRun(BenchmarkContext context, String library, IntFunction<Lock> locks)
			throws InterruptedException {
		List<Lock> perThread = new ArrayList<>();
		for (int i = 0; i < context.options().threads(); i++) {
			perThread.add(locks.apply(i));
		}
		Outcome outcome = context.load(LOCK + " " + library).run((thread) -> {
			Lock lock = perThread.get(thread);
			lock.lock();
			lock.unlock();
		});
		report(context, LOCK, library, outcome);
		return outcome.opsPerSecond();
	}

	private static double limitRun(BenchmarkContext context, String library, Decision decision)
			throws InterruptedException {
		Outcome outcome = context.load(RATE_LIMIT + " " + library).run((thread) -> {
			if (!decision.allowed(thread)) {
				throw new IllegalStateException(library + " rejected a call below its limit");
			}
		});
		report(context, RATE_LIMIT, library, outcome);
		return outcome.opsPerSecond();
	}

	private static void report(BenchmarkContext context, String scenario, String library, Outcome outcome) {
		if (outcome.errors() > 0 || outcome.hungThreads() > 0) {
			context.reportAnomaly(scenario + " " + library + ": " + outcome.errors() + " errors, "
					+ outcome.hungThreads() + " threads that did not finish", null);
		}
	}

	/** Runs both libraries {@code rounds} times, alternating which goes first, and keeps each one's median. */
	private static Map<String, Spread> runEach(BenchmarkContext context, String scenario, int rounds,
			Map<String, Measured> libraries) throws InterruptedException {
		List<String> names = new ArrayList<>(List.of("redis-kit", "redisson"));
		Map<String, List<Double>> runs = new LinkedHashMap<>();
		for (int round = 0; round < rounds; round++) {
			List<String> order = new ArrayList<>(names);
			if (round % 2 == 1) {
				Collections.reverse(order);
			}
			for (String name : order) {
				runs.computeIfAbsent(name, (key) -> new ArrayList<>()).add(libraries.get(name).opsPerSecond());
			}
		}
		Map<String, Spread> medians = new LinkedHashMap<>();
		for (String name : names) {
			medians.put(name, context.spread(scenario + " " + name, runs.get(name)));
		}
		return medians;
	}

	private static String line(String scenario, Map<String, Spread> medians) {
		return String.format(Locale.ROOT, "%s redis-kit=%d redisson=%d ratio=%.2f %s", scenario,
				Math.round(medians.get("redis-kit").median()), Math.round(medians.get("redisson").median()),
				medians.get("redis-kit").median() / medians.get("redisson").median(), Spread.token(medians));
	}

	private static Map<String, Object> scenario(String scenario, Map<String, Spread> medians) {
		Map<String, Object> entry = new LinkedHashMap<>();
		entry.put("scenario", scenario);
		entry.put("ratio",
				Math.round(medians.get("redis-kit").median() / medians.get("redisson").median() * 100) / 100.0);
		Map<String, Object> libraries = new LinkedHashMap<>();
		medians.forEach((library, spread) -> {
			Map<String, Object> figures = new LinkedHashMap<>();
			figures.put("opsPerSecond", Math.round(spread.median()));
			figures.putAll(spread.toJson());
			libraries.put(library, figures);
		});
		entry.put("libraries", libraries);
		return entry;
	}

	/** One measured run of a library. */
	private interface Measured {

		double opsPerSecond() throws InterruptedException;

	}

	/** One decision of a library's limiter for the thread's own key. */
	private interface Decision {

		boolean allowed(int thread);

	}

}
