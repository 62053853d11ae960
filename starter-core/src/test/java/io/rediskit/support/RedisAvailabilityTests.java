package io.rediskit.support;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.bloom.BloomFilter;
import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.bloom.BloomFilterSpec;
import io.rediskit.bloom.BloomMode;
import io.rediskit.counter.UniqueCounter;
import io.rediskit.counter.UniqueCounterRegistry;
import io.rediskit.counter.UniqueCounterSpec;
import io.rediskit.geo.GeoIndex;
import io.rediskit.geo.GeoIndexRegistry;
import io.rediskit.geo.GeoIndexSpec;
import io.rediskit.geo.GeoPoint;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.LockSpec;
import io.rediskit.lock.RedisLock;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueSpec;
import io.rediskit.queue.RedisQueue;
import io.rediskit.ratelimit.FailurePolicy;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimiter;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A paused server ({@code SIGSTOP}) and many concurrent callers of each area, through executors guarded by one
 * {@link RedisAvailability}: the calls that found the stall wait one command timeout, the following ones are
 * answered by the area's outage policy at once, and service resumes within one probe interval of
 * {@code SIGCONT}. The figures are printed for {@code docs/reliability.md}.
 */
class RedisAvailabilityTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(600);

	private static final Duration PROBE_INTERVAL = Duration.ofMillis(200);

	// What "at once" means on a loaded 2-core machine; measured figures are far below (docs/reliability.md).
	private static final Duration AT_ONCE = Duration.ofMillis(250);

	private static final int CALLERS = 16;

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	RedisServerProcess server;

	LettuceConnectionFactory connections;

	final List<String> events = new CopyOnWriteArrayList<>();

	final AtomicInteger refused = new AtomicInteger();

	RedisAvailability availability;

	LockRegistry locks;

	QueueRegistry queues;

	Map<String, Callable<String>> areas;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.server = redis.server();
		this.connections = TestConnections.lettuce(this.server, COMMAND_TIMEOUT);
		this.availability = RedisAvailability.of(this.connections, PROBE_INTERVAL, null,
				List.of(new RedisAvailabilityListener() {

					@Override
					public void onUnavailable(Throwable cause) {
						RedisAvailabilityTests.this.events.add("unavailable");
					}

					@Override
					public void onRefused() {
						RedisAvailabilityTests.this.refused.incrementAndGet();
					}

					@Override
					public void onAvailable(Duration unavailableFor) {
						RedisAvailabilityTests.this.events.add("available");
					}

				}));
		ScriptExecutor scripts = this.availability.guard(ScriptExecutor.of(this.connections));
		CommandExecutor commands = this.availability.guard(CommandExecutor.of(this.connections));
		RateLimiterRegistry limiters = new RateLimiterRegistry(scripts, this.connections, KeyNaming.defaults(),
				List.of(), (name) -> null);
		RateLimiter open = limiters.create("open",
				RateLimitSpec.of(RateLimitAlgorithm.GCRA, 1_000_000, Duration.ofMinutes(1)));
		RateLimiter closed = limiters.create("closed",
				RateLimitSpec.of(RateLimitAlgorithm.SLIDING_WINDOW, 1_000_000, Duration.ofMinutes(1))
					.withFailurePolicy(FailurePolicy.FAIL_CLOSED));
		this.locks = new LockRegistry(scripts, this.connections, KeyNaming.defaults(), LockSpec.defaults(), List.of(),
				java.time.Clock.systemUTC());
		RedisLock lock = this.locks.getLock("gate");
		this.queues = new QueueRegistry(scripts, this.connections, KeyNaming.defaults(), JsonMapper.builder().build(),
				List.of(), (name) -> null);
		RedisQueue<String> queue = this.queues.create("gate", QueueSpec.defaults(), String.class);
		UniqueCounter counter = new UniqueCounterRegistry(scripts, commands, KeyNaming.defaults(),
				(name) -> null)
			.create("gate", UniqueCounterSpec.daily(ZoneOffset.UTC));
		BloomFilter bloom = new BloomFilterRegistry(scripts, commands, KeyNaming.defaults(), BloomMode.BITMAP,
				List.of(), (name) -> null)
			.create("gate", BloomFilterSpec.of(1000, 0.01));
		GeoIndex geo = new GeoIndexRegistry(scripts, commands, KeyNaming.defaults()).create("gate",
				GeoIndexSpec.unsharded());
		this.areas = Map.of("bloom", () -> {
			bloom.add("item");
			return "ok";
		}, "geo", () -> {
			geo.put("member", GeoPoint.ofLatLon(52.52, 13.405));
			return "ok";
		}, "ratelimit-fail-open", () -> decision(open.tryAcquire("k")), "ratelimit-fail-closed",
				() -> decision(closed.tryAcquire("k")), "lock", () -> {
					if (!lock.tryLock(Duration.ZERO, Duration.ofSeconds(30))) {
						return "busy";
					}
					lock.unlock();
					return "ok";
				}, "queue", () -> {
					queue.enqueue("payload");
					return "ok";
				}, "counter", () -> {
					counter.add("member");
					return "ok";
				});
	}

	private static String decision(RateLimitDecision decision) {
		return decision.fromFailurePolicy() ? "policy:" + decision.outcome() : "ok";
	}

	@AfterEach
	void tearDown() {
		if (this.server.isAlive()) {
			this.server.resume();
		}
		this.availability.close();
		this.locks.close();
		this.queues.close();
		this.connections.destroy();
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "ratelimit-fail-open", "ratelimit-fail-closed", "lock", "queue", "counter", "bloom", "geo" })
	void aPausedServerCostsOneTimeoutThenEachCallIsAnsweredAtOnceUntilRedisAnswersAgain(String area)
			throws Exception {
		Callable<String> call = this.areas.get(area);
		// Connected, scripts loaded: a pause before the first connection would fail differently.
		assertThat(outcome(call)).isEqualTo("ok");
		ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
		long resumed;
		try {
			this.server.pause();
			List<Timed> found;
			List<Timed> refusedAtOnce;
			try {
				found = concurrently(callers, call, 1);
				assertThat(this.availability.isAvailable()).isFalse();
				refusedAtOnce = concurrently(callers, call, 50);
				assertThat(this.availability.isAvailable()).isFalse();
			}
			finally {
				this.server.resume();
				resumed = System.nanoTime();
			}
			System.out.printf("outage figures %s: first wave max %d ms; %d calls after it, p50 %d us, p99 %d us, max %d us%n",
					area, max(found).toMillis(), refusedAtOnce.size(), percentile(refusedAtOnce, 50).toNanos() / 1000,
					percentile(refusedAtOnce, 99).toNanos() / 1000, max(refusedAtOnce).toNanos() / 1000);
			String expected = switch (area) {
				case "ratelimit-fail-open" -> "policy:ERROR_ALLOWED";
				case "ratelimit-fail-closed" -> "policy:ERROR_REJECTED";
				default -> "unavailable";
			};
			// The calls that found the stall: one command timeout each, not two.
			assertThat(found).extracting(Timed::outcome).containsOnly(expected);
			assertThat(max(found)).isGreaterThanOrEqualTo(COMMAND_TIMEOUT.multipliedBy(8).dividedBy(10))
				.isLessThan(COMMAND_TIMEOUT.multipliedBy(2));
			// Every later call: the same answer, without waiting for Redis.
			assertThat(refusedAtOnce).extracting(Timed::outcome).containsOnly(expected);
			assertThat(max(refusedAtOnce)).isLessThan(AT_ONCE);
			// Fewer than the calls where an area batches them (the queue's enqueues).
			assertThat(this.refused).hasPositiveValue();
		}
		finally {
			callers.shutdownNow();
		}
		// Redis answers again: the next PING ends the refusals, and the first call after it goes through.
		String after = outcome(call);
		while (!after.equals("ok") && System.nanoTime() - resumed < TimeUnit.SECONDS.toNanos(10)) {
			TimeUnit.MILLISECONDS.sleep(5);
			after = outcome(call);
		}
		Duration back = Duration.ofNanos(System.nanoTime() - resumed);
		System.out.printf("outage figures %s: service back %d ms after SIGCONT%n", area, back.toMillis());
		assertThat(after).isEqualTo("ok");
		assertThat(back).isLessThan(PROBE_INTERVAL.plus(AT_ONCE));
		assertThat(this.events).containsExactly("unavailable", "available");
	}

	@Test
	void aCommandErrorIsNotAnOutage() {
		this.server.command("SET", "rk:test:{gate}", "a string");
		CommandExecutor commands = this.availability.guard(CommandExecutor.of(this.connections));
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(
				() -> commands.execute("INCR", ReturnType.INTEGER, "rk:test:{gate}".getBytes(StandardCharsets.UTF_8)));
		assertThat(this.availability.isAvailable()).isTrue();
		assertThat(this.events).isEmpty();
	}

	@Test
	void aCallSentBeforeRedisAnsweredAgainThatTimesOutLaterDoesNotStartRefusalsAgain() throws Exception {
		// The gate's own logic, with a PING that always answers: Redis itself is not the subject here.
		RedisAvailability gate = new RedisAvailability(() -> CompletableFuture.completedFuture("PONG"),
				Duration.ofMillis(20), null, List.of());
		try {
			CompletableFuture<Object> sentEarlier = new CompletableFuture<>();
			CompletionStage<Object> early = gate.callAsync(() -> sentEarlier);
			assertThatExceptionOfType(QueryTimeoutException.class).isThrownBy(() -> gate.call(() -> {
				throw new QueryTimeoutException("Redis command timed out");
			}));
			assertThat(gate.isAvailable()).isFalse();
			awaitAvailable(gate);
			sentEarlier.completeExceptionally(new QueryTimeoutException("Redis command timed out"));
			assertThat(early.toCompletableFuture()).isCompletedExceptionally();
			assertThat(gate.isAvailable()).isTrue();
			// A call sent now that finds an outage starts refusals again.
			assertThatExceptionOfType(QueryTimeoutException.class).isThrownBy(() -> gate.call(() -> {
				throw new QueryTimeoutException("Redis command timed out");
			}));
			assertThat(gate.isAvailable()).isFalse();
		}
		finally {
			gate.close();
		}
	}

	private static void awaitAvailable(RedisAvailability gate) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!gate.isAvailable() && System.nanoTime() - deadline < 0) {
			TimeUnit.MILLISECONDS.sleep(5);
		}
		assertThat(gate.isAvailable()).isTrue();
	}

	@Test
	void aProbeIntervalThatIsNotPositiveOrAboveTheMaximumIsRejectedNamingIt() {
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> RedisAvailability.of(this.connections, Duration.ZERO, null, List.of()))
			.withMessage("probeInterval must be positive and at most PT1M, was PT0S");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> RedisAvailability.of(this.connections, Duration.ofDays(1_000_000), null, List.of()))
			.withMessage("probeInterval must be positive and at most PT1M, was PT24000000H");
		RedisAvailability.of(this.connections, RedisAvailability.MAX_PROBE_INTERVAL, null, List.of()).close();
	}

	private String outcome(Callable<String> call) {
		try {
			return call.call();
		}
		catch (Exception ex) {
			if (ex instanceof DataAccessException && RedisFailures.isUnavailable(ex)) {
				return "unavailable";
			}
			return "error: " + ex;
		}
	}

	private List<Timed> concurrently(ExecutorService callers, Callable<String> call, int callsEach)
			throws Exception {
		CountDownLatch start = new CountDownLatch(1);
		List<Future<List<Timed>>> futures = new ArrayList<>();
		for (int i = 0; i < CALLERS; i++) {
			futures.add(callers.submit(() -> {
				start.await();
				List<Timed> timed = new ArrayList<>();
				for (int n = 0; n < callsEach; n++) {
					long started = System.nanoTime();
					String outcome = outcome(call);
					timed.add(new Timed(outcome, Duration.ofNanos(System.nanoTime() - started)));
				}
				return timed;
			}));
		}
		start.countDown();
		List<Timed> all = new ArrayList<>();
		for (Future<List<Timed>> future : futures) {
			all.addAll(future.get(30, TimeUnit.SECONDS));
		}
		return all;
	}

	private static Duration max(List<Timed> timed) {
		return timed.stream().map(Timed::took).max(Duration::compareTo).orElseThrow();
	}

	private static Duration percentile(List<Timed> timed, int percent) {
		List<Duration> sorted = new ArrayList<>(timed.stream().map(Timed::took).toList());
		Collections.sort(sorted);
		return sorted.get(Math.min(sorted.size() - 1, sorted.size() * percent / 100));
	}

	private record Timed(String outcome, Duration took) {
	}

}
