package io.rediskit.benchmarks.lock;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

import io.rediskit.benchmarks.Benchmark;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.ConcurrentLoad.Outcome;
import io.rediskit.benchmarks.ConcurrentLoad;
import io.rediskit.benchmarks.JsonWriter;
import io.rediskit.benchmarks.MedianRound;
import io.rediskit.benchmarks.Spread;
import io.rediskit.benchmarks.OpsChart;
import io.rediskit.lock.RedlockRegistry;
import io.rediskit.testsupport.RedisServerProcess;
import org.redisson.Redisson;
import org.redisson.RedissonMultiLock;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@code redlock}: {@code lock()} then {@code unlock()} in a loop over 5 independent masters started for the run
 * on loopback ports, redis-kit's {@link io.rediskit.lock.RedisLock} against Redisson's
 * {@link RedissonRedLock} (deprecated in Redisson 4, still shipped) over five {@code RLock}s of five
 * single-server clients, both with their defaults. Redisson's {@link RedissonMultiLock} over the same locks is
 * measured too, for reference: it needs every node, so it survives no failure and is not a Redlock.
 * <ul>
 * <li>{@code redlock.uncontended}: each thread has a lock of its own.</li>
 * <li>{@code redlock.contended}: all threads share one lock; a thread that gets the lock while another holds it
 * is reported as an anomaly.</li>
 * </ul>
 * Each scenario runs every library for several rounds, alternating the order, and reports each one's median
 * round, as {@code lock} does. The servers of {@code REDIS_URL} are not used: Redlock needs five.
 */
public final class RedlockBenchmark implements Benchmark {

	/** Each thread locks a name of its own. */
	public static final String UNCONTENDED = "redlock.uncontended";

	/** All threads lock one name. */
	public static final String CONTENDED = "redlock.contended";

	private static final int NODES = 5;

	@Override
	public String name() {
		return "redlock";
	}

	@Override
	public void run(BenchmarkContext context) throws Exception {
		String timestamp = Instant.now().toString();
		List<RedisServerProcess> servers = new ArrayList<>();
		List<LettuceConnectionFactory> factories = new ArrayList<>();
		List<RedissonClient> clients = new ArrayList<>();
		try {
			for (int i = 0; i < NODES; i++) {
				RedisServerProcess server = RedisServerProcess.start();
				servers.add(server);
				LettuceConnectionFactory factory = new LettuceConnectionFactory(
						new RedisStandaloneConfiguration(server.host(), server.port()),
						LettuceClientConfiguration.builder().build());
				factory.afterPropertiesSet();
				factory.start();
				factories.add(factory);
				Config config = new Config();
				config.useSingleServer().setAddress("redis://" + server.host() + ":" + server.port());
				clients.add(Redisson.create(config));
			}
			context.progress("Started " + NODES + " redis-servers for Redlock");
			try (RedlockRegistry registry = new RedlockRegistry(factories)) {
				Library redisKit = new Library("redis-kit", (name) -> LockCycle.of(registry.getLock("bench:rk:" + name)));
				Library redLock = new Library("redisson-redlock",
						(name) -> LockCycle.of(new RedissonRedLock(locks(clients, "bench:rrl:" + name))));
				Library multiLock = new Library("redisson-multilock",
						(name) -> LockCycle.of(new RedissonMultiLock(locks(clients, "bench:rml:" + name))));
				int rounds = context.options().rounds();
				List<Library> libraries = List.of(redisKit, redLock, multiLock);
				Map<String, MedianRound<Outcome>> uncontended = runEach(context, UNCONTENDED, libraries, rounds,
						(library) -> uncontended(context, library));
				System.out.println(line(UNCONTENDED, uncontended) + " " + context.cpu(UNCONTENDED).clientToken("redisson-redlock"));
				Map<String, MedianRound<Outcome>> contended = runEach(context, CONTENDED, libraries, rounds,
						(library) -> contended(context, library));
				System.out.println(line(CONTENDED, contended) + " " + context.cpu(CONTENDED).clientToken("redisson-redlock"));
				write(context, timestamp, libraries, Map.of(UNCONTENDED, uncontended, CONTENDED, contended));
			}
		}
		finally {
			clients.forEach(RedissonClient::shutdown);
			factories.forEach(LettuceConnectionFactory::destroy);
			servers.forEach(RedisServerProcess::close);
		}
	}

	private static RLock[] locks(List<RedissonClient> clients, String name) {
		return clients.stream().map((client) -> client.getLock(name)).toArray(RLock[]::new);
	}

	private Outcome uncontended(BenchmarkContext context, Library library) throws InterruptedException {
		List<LockCycle> locks = new ArrayList<>();
		for (int i = 0; i < context.options().threads(); i++) {
			locks.add(library.lock("uncontended:" + i));
		}
		return context.load(UNCONTENDED + " " + library.name()).run((thread) -> {
			LockCycle lock = locks.get(thread);
			lock.lock();
			lock.unlock();
		});
	}

	private Outcome contended(BenchmarkContext context, Library library) throws InterruptedException {
		LockCycle lock = library.lock("contended");
		AtomicInteger holders = new AtomicInteger();
		LongAdder overlaps = new LongAdder();
		Outcome outcome = context.load(CONTENDED + " " + library.name()).run((thread) -> {
			lock.lock();
			if (holders.incrementAndGet() != 1) {
				overlaps.increment();
			}
			holders.decrementAndGet();
			lock.unlock();
		});
		if (overlaps.sum() > 0) {
			context.reportAnomaly(CONTENDED + " " + library.name() + ": " + overlaps.sum()
					+ " times a thread got the lock while another thread still held it", null);
		}
		return outcome;
	}

	/** Runs each library {@code rounds} times, alternating the order, and keeps each one's median round. */
	private static Map<String, MedianRound<Outcome>> runEach(BenchmarkContext context, String scenarioName,
			List<Library> libraries, int rounds, Scenario scenario) throws InterruptedException {
		Map<String, List<Outcome>> runs = new LinkedHashMap<>();
		for (int round = 0; round < rounds; round++) {
			List<Library> order = new ArrayList<>(libraries);
			if (round % 2 == 1) {
				Collections.reverse(order);
			}
			for (Library library : order) {
				runs.computeIfAbsent(library.name(), (name) -> new ArrayList<>()).add(scenario.run(library));
			}
		}
		Map<String, MedianRound<Outcome>> medians = new LinkedHashMap<>();
		runs.forEach((name, all) -> medians.put(name,
				MedianRound.of(context, scenarioName + " " + name, all, Outcome::opsPerSecond)));
		return medians;
	}

	private static String line(String scenario, Map<String, MedianRound<Outcome>> runs) {
		Map<String, Spread> spreads = new LinkedHashMap<>();
		runs.forEach((library, median) -> spreads.put(library, median.spread()));
		return String.format(Locale.ROOT, "%s redis-kit=%d redisson-redlock=%d ratio=%.2f redisson-multilock=%d %s",
				scenario, ops(runs, "redis-kit"), ops(runs, "redisson-redlock"), ratio(runs),
				ops(runs, "redisson-multilock"), Spread.token(spreads));
	}

	private static long ops(Map<String, MedianRound<Outcome>> runs, String library) {
		return Math.round(runs.get(library).round().opsPerSecond());
	}

	private static double ratio(Map<String, MedianRound<Outcome>> runs) {
		return runs.get("redis-kit").round().opsPerSecond() / runs.get("redisson-redlock").round().opsPerSecond();
	}

	private void write(BenchmarkContext context, String timestamp, List<Library> libraries,
			Map<String, Map<String, MedianRound<Outcome>>> byScenario) throws Exception {
		Path directory = context.options().outputDirectory();
		List<String> scenarios = List.of(UNCONTENDED, CONTENDED);
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("benchmark", name());
		json.put("timestamp", timestamp);
		json.putAll(context.environment());
		json.put("nodes", NODES);
		List<Object> scenarioJson = new ArrayList<>();
		Map<String, List<? extends Number>> series = new LinkedHashMap<>();
		for (Library library : libraries) {
			series.put(library.name(), scenarios.stream().map((s) -> ops(byScenario.get(s), library.name())).toList());
		}
		for (String scenario : scenarios) {
			Map<String, MedianRound<Outcome>> runs = byScenario.get(scenario);
			Map<String, Object> entry = new LinkedHashMap<>();
			entry.put("scenario", scenario);
			entry.put("ratio", Math.round(ratio(runs) * 100) / 100.0);
			Map<String, Object> byLibrary = new LinkedHashMap<>();
			runs.forEach((library, median) -> {
				Outcome outcome = median.round();
				Map<String, Object> result = new LinkedHashMap<>();
				result.put("opsPerSecond", Math.round(outcome.opsPerSecond()));
				result.put("operations", outcome.operations());
				result.put("errors", outcome.errors());
				result.put("hungThreads", outcome.hungThreads());
				result.putAll(median.spread().toJson());
				byLibrary.put(library, result);
			});
			entry.put("libraries", byLibrary);
			scenarioJson.add(entry);
		}
		json.put("scenarios", scenarioJson);
		Path jsonFile = directory.resolve(name() + ".json");
		JsonWriter.write(jsonFile, json);
		Path chartFile = directory.resolve(name() + ".png");
		OpsChart.write(chartFile, "Redlock on " + NODES + " masters: lock() + unlock() pairs per second, "
				+ context.options().threads() + " threads, Redis " + context.redisVersion(), scenarios, series);
		context.progress("Wrote " + jsonFile + " and " + chartFile);
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

		Outcome run(Library library) throws InterruptedException;

	}

}
