package io.rediskit.cache;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.Stages;
import io.rediskit.testsupport.FaultProxy;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.cache.Cache;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Single-flight across three instances (this JVM and two {@link CacheWorker}s), 100 callers each, all missing one
 * key: the loader runs once in total, and every caller gets its value, or its failure.
 */
class CacheConcurrencyTests {

	private static final int THREADS = 100;

	private static final long LOADER_MILLIS = 1500;

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.withCommandTimeout(Duration.ofSeconds(10));

	@BeforeEach
	void clean() {
		redis.flushAll();
	}

	@Test
	void threeHundredCallersOnThreeJvmsLoadOnceAndAllGetTheValue() throws Exception {
		int[][] outcomes = storm("ok");
		assertThat(redis.server().command("GET", "loader-calls")).isEqualTo("1");
		for (int[] outcome : outcomes) {
			assertThat(outcome).containsExactly(THREADS, 0);
		}
		assertThat(redis.server().command("EXISTS", "rk:cache:{storm:hot}:load")).isEqualTo(0L);
	}

	@Test
	void aLoaderFailureReachesEveryWaiterOnEveryJvmAndTheNextMissLoadsAgain() throws Exception {
		int[][] outcomes = storm("fail");
		assertThat(redis.server().command("GET", "loader-calls")).isEqualTo("1");
		for (int[] outcome : outcomes) {
			assertThat(outcome).containsExactly(0, THREADS);
		}
		assertThat(redis.server().command("EXISTS", "rk:cache:{storm:hot}", "rk:cache:{storm:hot}:load"))
			.isEqualTo(0L);
		RedisKitCacheManager manager = CacheTesting.manager(redis.connections(), CacheSpec.defaults(), List.of());
		try {
			int[] retry = CacheWorker.storm(redis.connections(), manager.getCache("storm"), "hot", 1, 0, false);
			assertThat(retry).containsExactly(1, 0);
		}
		finally {
			manager.close();
		}
		assertThat(redis.server().command("GET", "loader-calls")).isEqualTo("2");
	}

	/**
	 * The window of CI's double load, held open: a waiter whose subscription carries nothing (a black hole) learns
	 * the outcome only by asking Redis, as any waiter does when it polls between the end of the load and the arrival
	 * of its message. It must get the failure, not take the free lease and load again.
	 */
	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void aWaiterThatAsksRedisAfterTheLoadFailedGetsTheFailureAndTheNextMissLoadsAgain(boolean async)
			throws Exception {
		AtomicInteger loads = new AtomicInteger();
		CountDownLatch loading = new CountDownLatch(1);
		CountDownLatch fail = new CountDownLatch(1);
		// The warm-up's miss, then the waiter's.
		CountDownLatch waiting = new CountDownLatch(2);
		CacheListener missed = new CacheListener() {
			@Override
			public void onMiss(String cacheName) {
				waiting.countDown();
			}
		};
		ExecutorService callers = Executors.newFixedThreadPool(2);
		RedisKitCacheManager owner = CacheTesting.manager(redis.connections(), CacheSpec.defaults(), List.of());
		try (FaultProxy proxy = FaultProxy.start(redis.server())) {
			LettuceConnectionFactory subscription = proxy.newConnectionFactory(Duration.ofSeconds(10));
			// Reads and polls reach Redis directly; only the subscription goes through the proxy.
			RedisKitCacheManager other = CacheTesting.manager(subscription, ScriptExecutor.of(redis.connections()),
					CommandExecutor.of(redis.connections()), CacheSpec.defaults(), Map.of(), List.of(missed));
			try {
				Cache waiter = other.getCache("storm");
				waiter.get("warm-up", () -> "warm");
				proxy.blackhole();
				Future<Object> loaded = callers.submit(() -> owner.getCache("storm").get("hot", () -> {
					loads.incrementAndGet();
					loading.countDown();
					fail.await();
					throw new IllegalStateException("database down");
				}));
				assertThat(loading.await(1, TimeUnit.MINUTES)).isTrue();
				Future<Object> waited = callers.submit(() -> {
					if (async) {
						return Stages.join(((RedisKitCache) waiter).retrieve("hot", () -> {
							loads.incrementAndGet();
							return CompletableFuture.completedFuture("loaded again");
						}));
					}
					return waiter.get("hot", () -> {
						loads.incrementAndGet();
						return "loaded again";
					});
				});
				// The waiter found the lease taken: from here on it waits for that load.
				assertThat(waiting.await(1, TimeUnit.MINUTES)).isTrue();
				fail.countDown();
				assertThatThrownBy(() -> loaded.get(1, TimeUnit.MINUTES)).hasRootCauseMessage("database down");
				assertThatThrownBy(() -> waited.get(1, TimeUnit.MINUTES)).rootCause()
					.isInstanceOf(CacheLoadFailedException.class)
					.hasMessageContaining("java.lang.IllegalStateException: database down");
				assertThat(loads).hasValue(1);
				assertThat(waiter.get("hot", () -> "next")).isEqualTo("next");
			}
			finally {
				proxy.pass();
				other.close();
				subscription.destroy();
			}
		}
		finally {
			owner.close();
			callers.shutdownNow();
		}
	}

	/**
	 * What {@code @Cacheable(sync = true)} gives the cache is a loader that throws Spring's
	 * {@code ThrowableWrapper} around the method's exception: the waiters of other instances are told the method's.
	 */
	@Test
	void theWaitersOfAFailedCacheableMethodInOtherInstancesAreToldTheMethodsException() throws Exception {
		CountDownLatch waiting = new CountDownLatch(1);
		CacheListener missed = new CacheListener() {
			@Override
			public void onMiss(String cacheName) {
				waiting.countDown();
			}
		};
		ExecutorService callers = Executors.newFixedThreadPool(2);
		RedisKitCacheManager other = CacheTesting.manager(redis.connections(), CacheSpec.defaults(), List.of(missed));
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.registerBean(RedisKitCacheManager.class,
					() -> CacheTesting.manager(redis.connections(), CacheSpec.defaults(), List.of()));
			context.register(FailingCatalog.class);
			context.refresh();
			FailingCatalog catalog = context.getBean(FailingCatalog.class);
			Future<Object> loaded = callers.submit(() -> catalog.find("hot"));
			assertThat(catalog.loading().await(1, TimeUnit.MINUTES)).isTrue();
			Future<Object> waited = callers.submit(() -> other.getCache("catalog").get("hot", () -> "loaded again"));
			assertThat(waiting.await(1, TimeUnit.MINUTES)).isTrue();
			catalog.fail().countDown();
			assertThatThrownBy(() -> loaded.get(1, TimeUnit.MINUTES)).cause()
				.isInstanceOf(IllegalStateException.class)
				.hasMessage("database down");
			assertThatThrownBy(() -> waited.get(1, TimeUnit.MINUTES)).rootCause()
				.isInstanceOf(CacheLoadFailedException.class)
				.hasMessage("Cache 'catalog': the load of this entry failed in another instance:"
						+ " java.lang.IllegalStateException: database down");
		}
		finally {
			other.close();
			callers.shutdownNow();
		}
	}

	/** Behind Spring's caching proxy: its state is reached through methods, which the proxy hands on. */
	@EnableCaching
	static class FailingCatalog {

		private final CountDownLatch loading = new CountDownLatch(1);

		private final CountDownLatch fail = new CountDownLatch(1);

		@Cacheable(cacheNames = "catalog", sync = true)
		public String find(String id) throws InterruptedException {
			this.loading.countDown();
			this.fail.await();
			throw new IllegalStateException("database down");
		}

		public CountDownLatch loading() {
			return this.loading;
		}

		public CountDownLatch fail() {
			return this.fail;
		}

	}

	private int[][] storm(String mode) throws Exception {
		String port = Integer.toString(redis.server().port());
		List<Process> workers = new ArrayList<>();
		RedisKitCacheManager manager = CacheTesting.manager(redis.connections(), ScriptExecutor.of(redis.connections()),
				CommandExecutor.of(redis.connections()), CacheSpec.defaults(), Map.of(), List.of());
		try {
			for (int i = 0; i < 2; i++) {
				workers.add(CacheWorker.start("storm", port, "storm", "hot", Integer.toString(THREADS),
						Long.toString(LOADER_MILLIS), mode));
			}
			for (Process worker : workers) {
				// A worker ends itself within CacheWorker.LIFETIME, so these reads cannot hang.
				assertThat(readLine(worker, "ready")).isEqualTo("ready");
			}
			Cache cache = manager.getCache("storm");
			cache.get("warm-up", () -> "warm");
			for (Process worker : workers) {
				worker.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
				worker.getOutputStream().flush();
			}
			int[] local = CacheWorker.storm(redis.connections(), cache, "hot", THREADS, LOADER_MILLIS, "fail".equals(mode));
			int[][] outcomes = new int[3][];
			outcomes[0] = local;
			for (int i = 0; i < workers.size(); i++) {
				String done = readLine(workers.get(i), "done ");
				String[] parts = done.split(" ");
				assertThat(parts).as(done).hasSize(3);
				outcomes[i + 1] = new int[] { Integer.parseInt(parts[1]), Integer.parseInt(parts[2]) };
				assertThat(workers.get(i).waitFor(1, TimeUnit.MINUTES)).isTrue();
			}
			return outcomes;
		}
		finally {
			manager.close();
			workers.forEach(Process::destroyForcibly);
		}
	}

	private static String readLine(Process process, String prefix) throws Exception {
		String line;
		do {
			line = readLine(process);
		}
		while (!line.startsWith(prefix) && !line.startsWith("(no output"));
		return line;
	}

	private static String readLine(Process process) throws Exception {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int b;
		while ((b = process.getInputStream().read()) != -1 && b != '\n') {
			line.write(b);
		}
		if (b == -1 && line.size() == 0) {
			return "(no output, exit " + (process.isAlive() ? "running" : process.exitValue()) + ")";
		}
		return line.toString(StandardCharsets.UTF_8);
	}

}
