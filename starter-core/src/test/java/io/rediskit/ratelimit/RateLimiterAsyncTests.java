package io.rediskit.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.rediskit.ratelimit.RateLimitDecision.Outcome;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.TestConnections;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link RateLimiter#tryAcquireAsync}: the same decisions as the sync path with many calls in flight on one
 * connection, the failure policy on an outage, command errors as exceptional completion.
 */
class RateLimiterAsyncTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	RedisServerProcess server;

	LettuceConnectionFactory connections;

	final List<String> events = new CopyOnWriteArrayList<>();

	RateLimiterRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.server = redis.server();
		this.connections = TestConnections.lettuce(this.server, COMMAND_TIMEOUT);
		RateLimitListener recorder = new RateLimitListener() {

			@Override
			public void onDecision(String limiterName, RateLimitDecision decision, Duration latency) {
				RateLimiterAsyncTests.this.events.add("decision " + decision.outcome());
			}

			@Override
			public void onFailure(String limiterName, RuntimeException failure) {
				RateLimiterAsyncTests.this.events.add("failure");
			}

		};
		this.registry = new RateLimiterRegistry(ScriptExecutor.of(this.connections), this.connections,
				KeyNaming.defaults(), List.of(recorder), (name) -> null);
	}

	@AfterEach
	void tearDown() {
		if (this.server.isAlive()) {
			this.server.resume();
		}
		this.connections.destroy();
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void manyCallsInFlightAdmitExactlyTheLimit(RateLimitAlgorithm algorithm) throws Exception {
		RateLimiter limiter = this.registry.create("async-" + algorithm.keyPart(),
				RateLimitSpec.of(algorithm, 50, Duration.ofHours(1)));
		List<CompletableFuture<RateLimitDecision>> calls = new ArrayList<>();
		for (int i = 0; i < 400; i++) {
			calls.add(limiter.tryAcquireAsync("k").toCompletableFuture());
		}
		CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
		long allowed = calls.stream().filter((call) -> call.join().allowed()).count();
		assertThat(allowed).isEqualTo(50);
		// The sync path sees the same state: nothing left.
		assertThat(limiter.tryAcquire("k").allowed()).isFalse();
		assertThat(this.events).hasSize(401).allMatch((event) -> event.startsWith("decision"));
	}

	@Test
	void anOutageGivesTheFailurePolicyWithoutBlockingTheCaller() throws Exception {
		RateLimiter open = this.registry.create("open", RateLimitSpec.of(RateLimitAlgorithm.GCRA, 5, Duration.ofMinutes(1)));
		RateLimiter closed = this.registry.create("closed", RateLimitSpec.of(RateLimitAlgorithm.TOKEN_BUCKET, 5,
				Duration.ofMinutes(1)).withFailurePolicy(FailurePolicy.FAIL_CLOSED));
		assertThat(open.tryAcquireAsync("k").toCompletableFuture().get(5, TimeUnit.SECONDS).allowed()).isTrue();
		this.server.pause();
		try {
			CompletableFuture<RateLimitDecision> allowed = open.tryAcquireAsync("k").toCompletableFuture();
			CompletableFuture<RateLimitDecision> denied = closed.tryAcquireAsync("k").toCompletableFuture();
			// Returned before Redis could answer: the caller was not held up for the command timeout.
			assertThat(allowed).isNotDone();
			RateLimitDecision openDecision = allowed.get(5, TimeUnit.SECONDS);
			RateLimitDecision closedDecision = denied.get(5, TimeUnit.SECONDS);
			assertThat(openDecision.outcome()).isEqualTo(Outcome.ERROR_ALLOWED);
			assertThat(openDecision.fromFailurePolicy()).isTrue();
			assertThat(closedDecision.outcome()).isEqualTo(Outcome.ERROR_REJECTED);
			assertThat(closedDecision.fromFailurePolicy()).isTrue();
		}
		finally {
			this.server.resume();
		}
		assertThat(this.events).contains("failure");
		RateLimitDecision after = open.tryAcquireAsync("k").toCompletableFuture().get(5, TimeUnit.SECONDS);
		assertThat(after.fromFailurePolicy()).isFalse();
	}

	@Test
	void aCommandErrorCompletesExceptionallyAndIsNotAPolicyDecision() {
		RateLimiter limiter = this.registry.create("typed", RateLimitSpec.of(RateLimitAlgorithm.FIXED_WINDOW, 5,
				Duration.ofMinutes(1)));
		this.server.command("SET", RateLimitTesting.redisKey(RateLimitAlgorithm.FIXED_WINDOW, "typed", "k"), "a string");
		CompletableFuture<RateLimitDecision> call = limiter.tryAcquireAsync("k").toCompletableFuture();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> call.get(5, TimeUnit.SECONDS))
			.withCauseInstanceOf(DataAccessException.class)
			.withStackTraceContaining("WRONGTYPE");
		assertThat(this.events).doesNotContain("failure");
	}

	@Test
	void invalidPermitsThrowAtOnce() {
		RateLimiter limiter = this.registry.create("small", RateLimitSpec.of(RateLimitAlgorithm.GCRA, 5,
				Duration.ofMinutes(1)));
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquireAsync("k", 0));
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquireAsync("k", 6));
	}

	@Test
	void resetAsyncGivesAKeyFullCapacityAgain() throws Exception {
		RateLimiter limiter = this.registry.create("reset-async",
				RateLimitSpec.of(RateLimitAlgorithm.GCRA, 1, Duration.ofHours(1)));
		assertThat(limiter.tryAcquireAsync("k").toCompletableFuture().get(5, TimeUnit.SECONDS).allowed()).isTrue();
		assertThat(limiter.tryAcquireAsync("k").toCompletableFuture().get(5, TimeUnit.SECONDS).allowed()).isFalse();
		assertThat(limiter.resetAsync("k").toCompletableFuture().get(5, TimeUnit.SECONDS)).isNull();
		assertThat(limiter.tryAcquireAsync("k").toCompletableFuture().get(5, TimeUnit.SECONDS).allowed()).isTrue();
		assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> limiter.resetAsync(null));
	}

}
