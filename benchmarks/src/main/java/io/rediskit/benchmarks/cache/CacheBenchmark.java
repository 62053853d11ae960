package io.rediskit.benchmarks.cache;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.rediskit.benchmarks.Benchmark;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.JsonWriter;
import io.rediskit.benchmarks.LatencySample;
import io.rediskit.benchmarks.Spread;
import io.rediskit.cache.CacheJsonSerializer;
import io.rediskit.cache.CacheSpec;
import io.rediskit.cache.NearCacheInvalidation;
import io.rediskit.cache.NearCacheSpec;
import io.rediskit.cache.RedisKitCacheManager;
import io.rediskit.cache.SingleFlight;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.data.redis.cache.RedisCacheConfiguration;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.serializer.RedisSerializationContext.SerializationPair;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * {@code cache}: side by side on one server, redis-kit's cache manager with its near cache, without it, and Spring
 * Data's {@link RedisCacheManager} (JSON values):
 * <ul>
 * <li><b>hits</b>: {@code Cache.get(key)} of 1 000 cached products with the run's threads, per second and p99
 * (the cache call itself, without the {@code @Cacheable} proxy every manager shares);</li>
 * <li><b>miss storm</b>: two instances (two connection factories, two managers) with the run's threads each,
 * all calling {@code Cache.get(key, loader)} ({@code @Cacheable(sync = true)}) on one missing key whose loader
 * takes 100 ms: loader calls, and the time until every caller has its value. Five storms each.</li>
 * <li><b>plain miss storm</b>: the same with what {@code @Cacheable} without {@code sync} does ({@code get(key)},
 * on a miss the loader, then {@code put}); only redis-kit with {@code single-flight: every-miss} loads once.</li>
 * <li><b>mixed</b>: nine reads to one write of a new value, on two instances, the near cache invalidated by
 * server-assisted tracking ({@code near-tracking}), by redis-kit's channel ({@code near-pubsub}), or not there.</li>
 * </ul>
 * Each figure also reports the processor time per call of this JVM and of the server.
 * Goals (issue 19): one loader call per storm across instances (Spring Data's: one per instance at best); hits
 * with the near cache at least 20x the Redis-only managers; without it at least as fast as Spring Data's.
 * Redisson's {@code RedissonSpringCacheManager} is not compared: {@code org.redisson:redisson-spring-data-41} at the
 * benchmarks' Redisson version (4.7.0, for Spring Data Redis 4.1) is on Maven Central but holds only the Spring
 * Data connection, and the cache manager's own artifact, {@code org.redisson:redisson-spring-cache}, is not there at
 * 4.7.0 (both checked with {@code mvn dependency:get}). Writes {@code cache.json}.
 */
public final class CacheBenchmark implements Benchmark {

	private static final int PRODUCTS = 1_000;

	private static final Duration LOADER = Duration.ofMillis(100);

	private static final int STORMS = 5;

	@Override
	public String name() {
		return "cache";
	}

	@Override
	public void run(BenchmarkContext context) throws Exception {
		LettuceConnectionFactory second = secondInstance(context.connectionFactory());
		String run = Long.toString(System.nanoTime(), 36);
		Map<String, Function<RedisConnectionFactory, CacheManager>> managers = new LinkedHashMap<>();
		managers.put("redis-kit near-tracking", (connections) -> kit(connections, CacheSpec.defaults()
			.withNearCache(NearCacheSpec.defaults().withInvalidation(NearCacheInvalidation.TRACKING))));
		managers.put("redis-kit near-pubsub", (connections) -> kit(connections, CacheSpec.defaults()
			.withNearCache(NearCacheSpec.defaults().withInvalidation(NearCacheInvalidation.PUBSUB))));
		managers.put("redis-kit", (connections) -> kit(connections, CacheSpec.defaults().withNearCache(null)));
		managers.put("redis-kit every-miss", (connections) -> kit(connections, CacheSpec.defaults()
			.withSingleFlight(SingleFlight.EVERY_MISS)));
		managers.put("spring-data", CacheBenchmark::springData);
		Map<String, Object> results = new LinkedHashMap<>();
		try {
			int index = 0;
			for (Map.Entry<String, Function<RedisConnectionFactory, CacheManager>> entry : managers.entrySet()) {
				CacheManager first = entry.getValue().apply(context.connectionFactory());
				CacheManager other = entry.getValue().apply(second);
				// Cache names of this manager's own: the redis-kit managers share one key layout, so with common
				// names a manager's storms would find the entries the one before it loaded, and call no loader.
				String names = run + "-" + index++;
				try {
					Map<String, Object> result = new LinkedHashMap<>();
					result.put("hits", hits(context, entry.getKey(), first.getCache("bench-hits-" + names)));
					result.put("mixed", mixed(context, entry.getKey(), first.getCache("bench-mixed-" + names),
							other.getCache("bench-mixed-" + names)));
					result.put("storm", storms(context, entry.getKey(), first.getCache("bench-storm-" + names),
							other.getCache("bench-storm-" + names), false));
					result.put("plainStorm", storms(context, entry.getKey(), first.getCache("bench-plain-" + names),
							other.getCache("bench-plain-" + names), true));
					results.put(entry.getKey(), result);
				}
				finally {
					close(first);
					close(other);
				}
			}
		}
		finally {
			second.destroy();
		}
		System.out.println("cache.hits " + context.cpu("cache.hits").token("spring-data"));
		System.out.println("cache.mixed " + context.cpu("cache.mixed").token("spring-data"));
		Files.createDirectories(context.options().outputDirectory());
		JsonWriter.write(context.options().outputDirectory().resolve("cache.json"), Map.of("environment",
				context.environment(), "loaderMillis", LOADER.toMillis(), "results", results));
	}

	private static Map<String, Object> hits(BenchmarkContext context, String label, Cache cache)
			throws InterruptedException {
		for (int i = 0; i < PRODUCTS; i++) {
			cache.put("p" + i, new Product("p" + i, "Product " + i, 1_999 + i));
		}
		LatencySample latencies = new LatencySample(100_000);
		AtomicInteger next = new AtomicInteger();
		// Rounds of one manager back to back: each manager's caches live only for its turn. The latencies are of
		// every round.
		List<Double> rates = new ArrayList<>();
		for (int round = 0; round < context.options().rounds(); round++) {
			rates.add(context.load("cache.hits " + label).run((thread) -> {
				long start = System.nanoTime();
				Cache.ValueWrapper hit = cache.get("p" + Math.floorMod(next.incrementAndGet(), PRODUCTS));
				latencies.record(System.nanoTime() - start);
				if (hit == null) {
					throw new IllegalStateException("A cached product was missing");
				}
			}).opsPerSecond());
		}
		Spread spread = context.spread("cache.hits " + label, rates);
		double rate = spread.median();
		double[] percentiles = latencies.percentilesMicros(50, 99);
		System.out.printf("%-26s %,12.0f/s  p50 %8.1f us  p99 %8.1f us  %s%n", "cache.hits " + label, rate,
				percentiles[0], percentiles[1], spread.token());
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("perSecond", rate);
		result.putAll(context.cpu("cache.hits").toJson(label));
		result.put("p50Micros", percentiles[0]);
		result.put("p99Micros", percentiles[1]);
		result.putAll(spread.toJson());
		return result;
	}

	/**
	 * A write-heavy mix on two instances: each call reads one of the products (nine in ten) or writes a new price
	 * for one (one in ten), the run's threads alternating between the instances, so every write invalidates the
	 * near copies of the other instance (by tracking or by the channel) and of its own. Counts the reads that came
	 * back with no value: none should, as every key is written before the run and a write replaces it.
	 */
	private static Map<String, Object> mixed(BenchmarkContext context, String label, Cache first, Cache other)
			throws InterruptedException {
		for (int i = 0; i < PRODUCTS; i++) {
			first.put("p" + i, new Product("p" + i, "Product " + i, 1_999 + i));
		}
		AtomicInteger next = new AtomicInteger();
		java.util.concurrent.atomic.LongAdder missing = new java.util.concurrent.atomic.LongAdder();
		List<Double> rates = new ArrayList<>();
		for (int round = 0; round < context.options().rounds(); round++) {
			rates.add(context.load("cache.mixed " + label).run((thread) -> {
				Cache cache = (thread % 2 == 0) ? first : other;
				int n = next.incrementAndGet();
				String key = "p" + Math.floorMod(n * 7919, PRODUCTS);
				if (n % 10 == 0) {
					cache.put(key, new Product(key, "Product", n));
				}
				else if (cache.get(key) == null) {
					missing.increment();
				}
			}).opsPerSecond());
		}
		Spread spread = context.spread("cache.mixed " + label, rates);
		System.out.printf("%-34s %,12.0f/s  (9 reads : 1 write, two instances)  %s%n", "cache.mixed " + label,
				spread.median(), spread.token());
		if (missing.sum() > 0) {
			context.reportAnomaly("cache.mixed " + label + ": " + missing.sum() + " reads found no value", null);
		}
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("perSecond", spread.median());
		result.putAll(spread.toJson());
		result.putAll(context.cpu("cache.mixed").toJson(label));
		return result;
	}

	private static Map<String, Object> storms(BenchmarkContext context, String label, Cache first, Cache other,
			boolean plain) throws Exception {
		int threads = context.options().threads();
		List<Long> loaderCalls = new ArrayList<>();
		List<Double> millis = new ArrayList<>();
		ExecutorService pool = Executors.newFixedThreadPool(2 * threads);
		try {
			for (int storm = 0; storm < STORMS; storm++) {
				String key = "storm-" + storm;
				AtomicInteger calls = new AtomicInteger();
				CountDownLatch start = new CountDownLatch(1);
				List<Future<Product>> callers = new ArrayList<>();
				for (int i = 0; i < 2 * threads; i++) {
					Cache cache = (i % 2 == 0) ? first : other;
					Callable<Product> loader = () -> {
						calls.incrementAndGet();
						Thread.sleep(LOADER.toMillis());
						return new Product(key, "Loaded", 1);
					};
					callers.add(pool.submit(() -> {
						start.await();
						return plain ? cacheable(cache, key, loader) : cache.get(key, loader);
					}));
				}
				long begin = System.nanoTime();
				start.countDown();
				for (Future<Product> caller : callers) {
					caller.get(1, TimeUnit.MINUTES);
				}
				millis.add((System.nanoTime() - begin) / 1e6);
				if (calls.get() == 0) {
					throw new IllegalStateException("Storm " + storm + " of " + label + " called no loader: its key was"
							+ " cached before the storm, so the row would measure nothing");
				}
				loaderCalls.add((long) calls.get());
			}
		}
		finally {
			pool.shutdownNow();
		}
		System.out.printf("%-26s loader calls %s  every caller served after %s ms%n",
				(plain ? "cache.plain " : "cache.storm ") + label,
				loaderCalls, millis.stream().map((m) -> String.format("%.0f", m)).toList());
		return Map.of("callers", 2 * threads, "loaderCalls", loaderCalls, "millisUntilAllServed", millis);
	}

	/** What Spring's cache interceptor does for {@code @Cacheable} without {@code sync}. */
	private static Product cacheable(Cache cache, String key, Callable<Product> loader) throws Exception {
		Cache.ValueWrapper cached = cache.get(key);
		if (cached != null) {
			return (Product) cached.get();
		}
		Product loaded = loader.call();
		cache.put(key, loaded);
		return loaded;
	}

	private static CacheManager kit(RedisConnectionFactory connections, CacheSpec spec) {
		return new RedisKitCacheManager(ScriptExecutor.of(connections), CommandExecutor.of(connections), connections,
				KeyNaming.defaults(), new CacheJsonSerializer(JsonMapper.builder().build(),
						List.of("io.rediskit.benchmarks")),
				spec, Map.of(), List.of(), RedisKitCacheManager.DEFAULT_HEARTBEAT, null);
	}

	private static CacheManager springData(RedisConnectionFactory connections) {
		RedisCacheManager manager = RedisCacheManager.builder(connections)
			.cacheDefaults(RedisCacheConfiguration.defaultCacheConfig()
				.entryTtl(CacheSpec.DEFAULT_TTL)
				.serializeValuesWith(SerializationPair.fromSerializer(RedisSerializer.json())))
			.build();
		manager.afterPropertiesSet();
		return manager;
	}

	private static LettuceConnectionFactory secondInstance(RedisConnectionFactory first) {
		LettuceConnectionFactory lettuce = (LettuceConnectionFactory) first;
		LettuceConnectionFactory second = new LettuceConnectionFactory(lettuce.getStandaloneConfiguration(),
				lettuce.getClientConfiguration());
		second.afterPropertiesSet();
		second.start();
		return second;
	}

	private static void close(CacheManager manager) {
		if (manager instanceof RedisKitCacheManager kit) {
			kit.close();
		}
	}

	/**
	 * A cached value.
	 * @param id its id
	 * @param name its name
	 * @param cents its price
	 */
	public record Product(String id, String name, long cents) {
	}

}
