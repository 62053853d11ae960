package io.rediskit.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.ScopeRecordingScripts;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** Every decision of a limiter, sync and async, is an observation tagged with the limiter, algorithm and outcome. */
class RateLimitObservationTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final TestObservationRegistry observed = TestObservationRegistry.create();

	RateLimiterRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = new RateLimiterRegistry(redis.scripts(), redis.connections(), KeyNaming.defaults(), List.of(),
				(name) -> null);
		this.registry.setObservations(Observations.of(this.observed, null));
	}

	@Test
	void decisionsAreObservedWithTheLimiterAlgorithmAndOutcomeButNotTheKey() throws Exception {
		RateLimiter limiter = this.registry.create("login",
				RateLimitSpec.of(RateLimitAlgorithm.GCRA, 1, Duration.ofMinutes(1)));
		assertThat(limiter.tryAcquire("alice@example.com").allowed()).isTrue();
		assertThat(limiter.tryAcquireAsync("alice@example.com").toCompletableFuture().get(10, TimeUnit.SECONDS)
			.allowed()).isFalse();
		TestObservationRegistryAssert.assertThat(this.observed)
			.hasNumberOfObservationsWithNameEqualTo("rediskit.ratelimit.decision", 2)
			.forAllObservationsWithNameEqualTo("rediskit.ratelimit.decision", (decision) -> decision
				.hasContextualNameEqualTo("rate limit login")
				.hasLowCardinalityKeyValue("name", "login")
				.hasLowCardinalityKeyValue("algorithm", "gcra")
				.doesNotHaveLowCardinalityKeyValueWithKey("key")
				.doesNotHaveHighCardinalityKeyValueWithKey("key")
				.doesNotHaveError())
			.hasAnObservation((decision) -> decision.hasLowCardinalityKeyValue("outcome", "allowed"))
			.hasAnObservation((decision) -> decision.hasLowCardinalityKeyValue("outcome", "rejected"));
	}

	@Test
	void theScriptIsSentInsideTheDecisionsScopeSyncAndAsyncAndTheScopeDoesNotLeak() throws Exception {
		ScopeRecordingScripts scripts = new ScopeRecordingScripts(redis.scripts(), this.observed);
		RateLimiterRegistry recorded = new RateLimiterRegistry(scripts, redis.connections(), KeyNaming.defaults(),
				List.of(), (name) -> null);
		recorded.setObservations(Observations.of(this.observed, null));
		RateLimiter limiter = recorded.create("login", RateLimitSpec.of(RateLimitAlgorithm.GCRA, 5, Duration.ofMinutes(1)));
		assertThat(limiter.tryAcquire("alice").allowed()).isTrue();
		assertThat(limiter.tryAcquireAsync("alice").toCompletableFuture().get(10, TimeUnit.SECONDS).allowed()).isTrue();
		assertThat(scripts.dispatched).containsExactly("rediskit.ratelimit.decision", "rediskit.ratelimit.decision");
		assertThat(this.observed.getCurrentObservation()).as("no scope left open on the caller's thread").isNull();
		assertThat(scripts.completed).as("none open on the driver's thread").allMatch("none"::equals);
	}

}
