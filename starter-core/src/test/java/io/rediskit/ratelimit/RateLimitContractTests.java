package io.rediskit.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.rediskit.ratelimit.RateLimitDecision.Outcome;
import io.rediskit.ratelimit.RateLimitLoad.Granted;
import io.rediskit.support.HostileNames;
import io.rediskit.support.KeyNaming;
import io.rediskit.testsupport.RedisServerProcess;
import io.rediskit.testsupport.Topology;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every rate-limit algorithm promises on every topology (run once per {@link Topology}):
 * its decisions, the bound under many concurrent threads (checked by {@link AdmissionChecker} on the server
 * time of each admission) and the same decisions asynchronously.
 */
class RateLimitContractTests extends TopologyContract {

	RateLimiterRegistry registry;

	@BeforeEach
	void setUpRegistry() {
		this.registry = new RateLimiterRegistry(this.redis.connections(), KeyNaming.defaults(), RateLimitListener.NONE);
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void admitsUpToTheLimitThenRejectsUntilReset(RateLimitAlgorithm algorithm) {
		RateLimiter limiter = this.registry.create(this.redis.unique("decide"), RateLimitSpec.of(algorithm, 5, Duration.ofHours(1)));
		String key = "user:42";
		for (int i = 0; i < 5; i++) {
			RateLimitDecision decision = limiter.tryAcquire(key);
			assertThat(decision.outcome()).as("call %d", i + 1).isEqualTo(Outcome.ALLOWED);
			assertThat(decision.remaining()).isEqualTo(4 - i);
		}
		RateLimitDecision rejected = limiter.tryAcquire(key);
		assertThat(rejected.outcome()).isEqualTo(Outcome.REJECTED);
		assertThat(rejected.retryAfter()).isPositive();
		assertThat(limiter.tryAcquire("user:43").allowed()).as("another key").isTrue();
		limiter.reset(key);
		assertThat(limiter.tryAcquire(key).allowed()).as("after reset").isTrue();
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void aPeekTellsWhatTheNextAcquisitionGetsAndTakesNothing(RateLimitAlgorithm algorithm) throws Exception {
		RateLimiter limiter = this.registry.create(this.redis.unique("peek"), RateLimitSpec.of(algorithm, 5, Duration.ofHours(1)));
		RateLimitState untouched = limiter.peek("k");
		assertThat(untouched).isEqualTo(new RateLimitState(5, 5, Duration.ZERO, Duration.ZERO));
		assertThat(limiter.tryAcquire("k", 2).allowed()).isTrue();
		RateLimitState state = limiter.peek("k");
		assertThat(limiter.peekAsync("k").toCompletableFuture().get(10, TimeUnit.SECONDS).remaining())
			.as("asynchronously").isEqualTo(3);
		assertThat(state.limit()).isEqualTo(5);
		assertThat(state.remaining()).isEqualTo(3);
		assertThat(state.retryAfter()).isZero();
		assertThat(state.resetAfter()).isPositive().isLessThanOrEqualTo(Duration.ofHours(2));
		// Time only frees permits, so what the peek promised is granted, and nothing was taken by peeking.
		RateLimitDecision all = limiter.tryAcquire("k", 3);
		assertThat(all.outcome()).isEqualTo(Outcome.ALLOWED);
		assertThat(all.remaining()).isZero();
		RateLimitState empty = limiter.peek("k");
		assertThat(empty.remaining()).isZero();
		assertThat(empty.retryAfter()).isPositive();
		RateLimitDecision rejected = limiter.tryAcquire("k");
		assertThat(rejected.outcome()).isEqualTo(Outcome.REJECTED);
		assertThat(rejected.retryAfter()).isPositive().isLessThanOrEqualTo(empty.retryAfter());
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void manyThreadsNeverExceedTheBound(RateLimitAlgorithm algorithm) throws Exception {
		RateLimitSpec spec = RateLimitSpec.of(algorithm, 40, Duration.ofMillis(200));
		RedisRateLimiter limiter = RateLimitTesting.internal(this.registry.create(this.redis.unique("bound"), spec));
		List<Granted> admitted = RateLimitLoad.run(limiter, "k", 32, TimeUnit.MILLISECONDS.toNanos(800), 2);
		List<AdmissionChecker.Admission> log = admitted.stream().map(Granted::admission).toList();
		AdmissionChecker.assertHolds(spec, log);
		assertThat(AdmissionChecker.check(spec, log).ratio()).as("the load pressed against the limit").isGreaterThan(0.5);
	}

	@Test
	void tenThousandHostileKeysDecideAndSpreadOverEveryMaster() throws Exception {
		List<String> limiters = new ArrayList<>();
		ExecutorService executor = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> tasks = new ArrayList<>();
			for (RateLimitAlgorithm algorithm : RateLimitAlgorithm.values()) {
				String name = this.redis.unique("hostile");
				limiters.add(name);
				RateLimiter limiter = this.registry.create(name, RateLimitSpec.of(algorithm, 10, Duration.ofHours(1)));
				List<String> keys = HostileNames.generate("k", 2_000, algorithm.ordinal());
				for (int t = 0; t < 4; t++) {
					int first = t;
					tasks.add(executor.submit(() -> {
						for (int i = first; i < keys.size(); i += 4) {
							// Any CROSSSLOT or MOVED reaching the caller fails the test here.
							RateLimitDecision decision = limiter.tryAcquire(keys.get(i));
							assertThat(decision.outcome()).isEqualTo(Outcome.ALLOWED);
						}
						return null;
					}));
				}
			}
			for (Future<?> task : tasks) {
				task.get(5, TimeUnit.MINUTES);
			}
		}
		finally {
			executor.shutdownNow();
		}
		int masters = (this.topology == Topology.CLUSTER) ? 3 : 1;
		for (String name : limiters) {
			Map<RedisServerProcess, Long> spread = this.redis.keysPerMaster("rk:ratelimit:*{" + name + ":k*");
			assertThat(spread.values().stream().mapToLong(Long::longValue).sum()).as(name).isEqualTo(2_000);
			assertThat(spread).hasSize(masters);
			assertThat(spread.values()).as("keys per master").allMatch((count) -> count > 2_000 / masters / 2);
		}
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void decidesAsynchronously(RateLimitAlgorithm algorithm) throws Exception {
		RateLimiter limiter = this.registry.create(this.redis.unique("async"), RateLimitSpec.of(algorithm, 5, Duration.ofHours(1)));
		List<CompletableFuture<RateLimitDecision>> decisions = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			decisions.add(limiter.tryAcquireAsync("k").toCompletableFuture());
		}
		long allowed = 0;
		for (CompletableFuture<RateLimitDecision> decision : decisions) {
			RateLimitDecision answered = decision.get(10, TimeUnit.SECONDS);
			assertThat(answered.fromFailurePolicy()).isFalse();
			allowed += answered.allowed() ? 1 : 0;
		}
		assertThat(allowed).isEqualTo(5);
		assertThat(limiter.tryAcquireAsync("k").toCompletableFuture().get(10, TimeUnit.SECONDS).outcome())
			.isEqualTo(Outcome.REJECTED);
	}

}
