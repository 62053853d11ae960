package io.rediskit.cache;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.testsupport.WorkerLifetime;
import io.rediskit.testsupport.WorkerJvm;

import org.springframework.cache.Cache;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * An instance of the cache in a JVM of its own, started with {@link ProcessBuilder}:
 * {@code storm <port> <cache> <key> <threads> <loaderMillis> <ok|fail>} builds a cache manager, prints
 * {@code ready}, waits for a line on standard input, then has each thread call {@code get(key, loader)} once;
 * the loader counts its calls in Redis ({@code INCR loader-calls}), sleeps and returns {@code value} or throws.
 * Prints {@code done <values> <failures>}: the callers that received {@code value}, and those that saw the
 * loader's failure. Ends itself after {@link #LIFETIME}, or as soon as the JVM that started it is gone.
 */
public final class CacheWorker {

	static final Duration LIFETIME = Duration.ofMinutes(2);

	private CacheWorker() {
	}

	public static void main(String[] args) throws Exception {
		WorkerLifetime.haltWhenOverdueOrOrphaned("CacheWorker", LIFETIME);
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[1])),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		connections.afterPropertiesSet();
		connections.start();
		RedisKitCacheManager manager = CacheTesting.manager(connections, ScriptExecutor.of(connections),
				CommandExecutor.of(connections), CacheSpec.defaults(), Map.of(), List.of());
		Cache cache = manager.getCache(args[2]);
		// Warm up the code paths and the subscription before the storm.
		cache.get("warm-up", () -> "warm");
		System.out.println("ready");
		System.out.flush();
		new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
		int[] outcome = storm(connections, cache, args[3], Integer.parseInt(args[4]), Long.parseLong(args[5]),
				"fail".equals(args[6]));
		System.out.println("done " + outcome[0] + " " + outcome[1]);
		System.out.flush();
		manager.close();
		connections.destroy();
	}

	/**
	 * Runs the storm of one instance.
	 * @return the callers that received {@code value}, and those that saw a failure
	 */
	static int[] storm(LettuceConnectionFactory connections, Cache cache, String key, int threads, long loaderMillis,
			boolean fail) throws Exception {
		Callable<String> loader = () -> {
			try (RedisConnection connection = connections.getConnection()) {
				connection.stringCommands().incr("loader-calls".getBytes(StandardCharsets.UTF_8));
			}
			Thread.sleep(loaderMillis);
			if (fail) {
				throw new IllegalStateException("database unavailable");
			}
			return "value";
		};
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<String>> calls = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				calls.add(pool.submit(() -> {
					try {
						return cache.get(key, loader);
					}
					catch (Cache.ValueRetrievalException ex) {
						return "failed";
					}
				}));
			}
			int values = 0;
			int failures = 0;
			for (Future<String> call : calls) {
				String result = call.get(1, TimeUnit.MINUTES);
				if ("value".equals(result)) {
					values++;
				}
				else if ("failed".equals(result)) {
					failures++;
				}
			}
			return new int[] { values, failures };
		}
		finally {
			pool.shutdownNow();
		}
	}

	static Process start(String... args) throws java.io.IOException {
		return WorkerJvm.of(CacheWorker.class, args).lifetime(LIFETIME).start();
	}

}
