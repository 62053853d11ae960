package io.rediskit.ratelimit;

import java.time.Duration;

import io.rediskit.ratelimit.RateLimitDecision.Outcome;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.rediskit.ratelimit.RateLimitTesting.MILLI;
import static io.rediskit.ratelimit.RateLimitTesting.T0;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each algorithm's read-only peek script with pinned time, against the decision script at the same moment: the
 * peek must answer what a following acquisition is told, and must leave the key as it was.
 */
class RateLimitPeekTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	RateLimiterRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = new RateLimiterRegistry(redis.connections(), KeyNaming.defaults(), RateLimitListener.NONE);
	}

	// Four permits per eight seconds, called every 700 ms: the key fills, is rejected, refills and empties again,
	// so the peek is compared in every state, the untouched key first.
	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void aPeekAnswersWhatTheNextAcquisitionIsToldAndWritesNothing(RateLimitAlgorithm algorithm) {
		String name = "peek-" + algorithm.keyPart();
		RedisRateLimiter limiter = RateLimitTesting
			.internal(this.registry.create(name, RateLimitSpec.of(algorithm, 4, Duration.ofSeconds(8))));
		String key = RateLimitTesting.redisKey(algorithm, name, "user-1");
		int allowed = 0;
		int rejected = 0;
		for (int step = 0; step < 40; step++) {
			long now = T0 + step * 700 * MILLI;
			Object before = redis.server().command("DUMP", key);
			Long ttlBefore = (Long) redis.server().command("PTTL", key);
			RateLimitState state = limiter.peekAsync("user-1", now).toCompletableFuture().join();
			assertThat(redis.server().command("DUMP", key)).as("the key after a peek at step %d", step)
				.isEqualTo(before);
			assertThat((Long) redis.server().command("PTTL", key)).as("its TTL").isLessThanOrEqualTo(ttlBefore);
			assertThat(state.limit()).isEqualTo(4);
			if (state.remaining() < 4) {
				// One more than the peek says is refused: the peek's remaining is exact, not a lower bound.
				assertThat(limiter.evaluate("user-1", (int) state.remaining() + 1, now).decision().outcome())
					.as("%d permits at step %d", state.remaining() + 1, step)
					.isEqualTo(Outcome.REJECTED);
			}
			RateLimitDecision decision = limiter.evaluate("user-1", 1, now).decision();
			if (state.remaining() >= 1) {
				allowed++;
				assertThat(state.retryAfter()).isZero();
				assertThat(decision.outcome()).as("step %d", step).isEqualTo(Outcome.ALLOWED);
				assertThat(decision.remaining()).as("step %d", step).isEqualTo(state.remaining() - 1);
			}
			else {
				rejected++;
				assertThat(decision).as("step %d", step)
					.isEqualTo(new RateLimitDecision(Outcome.REJECTED, state.limit(), state.remaining(),
							state.retryAfter(), state.resetAfter()));
			}
		}
		assertThat(allowed).as("allowed steps").isGreaterThan(4);
		assertThat(rejected).as("rejected steps").isGreaterThan(4);
	}

}
