package io.rediskit.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.rediskit.ratelimit.RateLimitDecision.Outcome;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Names;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The registry and the limiter API: names, arguments, waiting, reset, keys as data, listeners. */
class RateLimiterTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final List<String> decisions = new CopyOnWriteArrayList<>();

	RateLimiterRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = new RateLimiterRegistry(redis.connections(), KeyNaming.defaults(), new RateLimitListener() {

			@Override
			public void onDecision(String limiterName, RateLimitDecision decision, Duration latency) {
				RateLimiterTests.this.decisions.add(limiterName + " " + decision.outcome().tag());
			}

		});
	}

	@Test
	void unknownAndInvalidNamesAreRejectedWithTheReason() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.get("nope"))
			.withMessageContaining("No rate limiter named 'nope'")
			.withMessageContaining("redis-kit.rate-limit.limiters.nope");
		// No property can hold a dotted name: the message must not advise one.
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.get("api.v1"))
			.withMessage("No rate limiter named 'api.v1', and none can be: names are " + Names.RULE);
		RateLimitSpec spec = RateLimitSpec.of(RateLimitAlgorithm.GCRA, 1, Duration.ofSeconds(1));
		for (String name : List.of("", "a:b", "a.b", "{x}", "-x", "x".repeat(65))) {
			assertThatIllegalArgumentException().as(name).isThrownBy(() -> this.registry.create(name, spec))
				.withMessageContaining("Rate limiter name");
		}
		assertThat(this.registry.create("api-v1_x", spec).name()).isEqualTo("api-v1_x");
		assertThat(this.registry.get("api-v1_x")).isSameAs(this.registry.create("api-v1_x", spec));
		assertThat(this.registry.names()).containsExactly("api-v1_x");
	}

	@Test
	void specsAreValidatedWithTheReason() {
		Duration second = Duration.ofSeconds(1);
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimitSpec.of(RateLimitAlgorithm.GCRA, 0, second))
			.withMessage("limit must be at least 1, was 0");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RateLimitSpec.of(RateLimitAlgorithm.GCRA, 1, Duration.ofNanos(999_999)))
			.withMessageContaining("period must be at least 1ms");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RateLimitSpec.of(RateLimitAlgorithm.FIXED_WINDOW, 1, second).withBurst(3))
			.withMessageContaining("burst applies to TOKEN_BUCKET and GCRA only, not to FIXED_WINDOW");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RateLimitSpec.of(RateLimitAlgorithm.TOKEN_BUCKET, 1, second).withBurst(0))
			.withMessage("burst must be at least 1, was 0");
	}

	@Test
	void valuesTheScriptsCannotComputeExactlyAreRejectedWithTheComponentAndReason() {
		// 100000 days, from a report: before the bound, every decision failed with an ArithmeticException.
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> RateLimitSpec.of(RateLimitAlgorithm.GCRA, 10, Duration.ofDays(100_000)))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("period"))
			.withMessageContaining("period must be at most 18250 days");
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> RateLimitSpec.of(RateLimitAlgorithm.GCRA, 10, Duration.ofSeconds(Long.MAX_VALUE)))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("period"));
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> RateLimitSpec.of(RateLimitAlgorithm.SLIDING_WINDOW, Long.MAX_VALUE, Duration.ofSeconds(1)))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("limit"))
			.withMessageContaining("2^53");
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> RateLimitSpec.of(RateLimitAlgorithm.TOKEN_BUCKET, 1, RateLimitSpec.MAX_PERIOD)
				.withBurst(3))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("burst"))
			.withMessageContaining("to refill");
	}

	@Test
	void theLongestPeriodDecidesExactlyWithEveryAlgorithm() {
		for (RateLimitAlgorithm algorithm : RateLimitAlgorithm.values()) {
			RateLimitSpec spec = RateLimitSpec.of(algorithm, 1, RateLimitSpec.MAX_PERIOD);
			if (algorithm.supportsBurst()) {
				spec = spec.withBurst(2);
			}
			RateLimiter limiter = this.registry.create("longest-" + algorithm.name().toLowerCase().replace('_', '-'),
					spec);
			for (long i = 0; i < spec.capacity(); i++) {
				assertThat(limiter.tryAcquire("k").allowed()).as(algorithm.name()).isTrue();
			}
			RateLimitDecision rejected = limiter.tryAcquire("k");
			assertThat(rejected.outcome()).as(algorithm.name()).isEqualTo(Outcome.REJECTED);
			assertThat(rejected.retryAfter()).as(algorithm.name())
				.isPositive()
				.isLessThanOrEqualTo(RateLimitSpec.MAX_PERIOD.multipliedBy(2));
			assertThat(rejected.resetAfter()).as(algorithm.name())
				.isPositive()
				.isLessThanOrEqualTo(RateLimitSpec.MAX_REFILL);
		}
	}

	@Test
	void permitsOutsideOneToTheCapacityAreRejectedBeforeRedis() {
		RateLimiter limiter = this.registry.create("cap",
				RateLimitSpec.of(RateLimitAlgorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(1)).withBurst(3));
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire("k", 0))
			.withMessage("permits must be at least 1, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire("k", 4))
			.withMessageContaining("capacity of 3");
		assertThat(limiter.tryAcquire("k", 3).allowed()).isTrue();
		assertThat(this.decisions).containsExactly("cap allowed");
	}

	@Test
	void acquireSleepsForTheRetryAfterAndGivesUpWhenTheWaitWouldExceedMaxWait() throws Exception {
		RateLimiter limiter = this.registry.create("wait",
				RateLimitSpec.of(RateLimitAlgorithm.GCRA, 1, Duration.ofSeconds(2)).withBurst(1));
		assertThat(limiter.tryAcquire("k").allowed()).isTrue();
		RateLimitDecision refused = limiter.acquire("k", 1, Duration.ZERO);
		assertThat(refused.outcome()).isEqualTo(Outcome.REJECTED);
		assertThat(refused.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(2));
		RateLimitDecision waited = limiter.acquire("k", 1, Duration.ofSeconds(5));
		assertThat(waited.allowed()).isTrue();
		// One rejection, then the call after the wait: no spinning in between.
		assertThat(this.decisions).containsExactly("wait allowed", "wait rejected", "wait rejected", "wait allowed");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.acquire("k", 1, Duration.ofSeconds(-1)));
	}

	@Test
	void resetGivesAKeyItsFullCapacityBack() {
		RateLimiter limiter = this.registry.create("login", RateLimitSpec.of(RateLimitAlgorithm.SLIDING_LOG, 2,
				Duration.ofMinutes(1)));
		limiter.tryAcquire("alice", 2);
		assertThat(limiter.tryAcquire("alice").allowed()).isFalse();
		assertThat(limiter.tryAcquire("bob").allowed()).as("keys are counted apart").isTrue();
		limiter.reset("alice");
		assertThat(limiter.tryAcquire("alice").remaining()).isEqualTo(1);
	}

	@Test
	void keysAreDataInTheirOwnHashTagWithABoundedLength() {
		RateLimiter limiter = this.registry.create("keys", RateLimitSpec.of(RateLimitAlgorithm.FIXED_WINDOW, 1,
				Duration.ofMinutes(1)));
		for (String key : List.of("}x{", "a}:{b", "T(java.lang.Runtime).getRuntime()", "#{1+1}", "x".repeat(10_000))) {
			assertThat(limiter.tryAcquire(key).allowed()).as(key.substring(0, Math.min(key.length(), 40))).isTrue();
			assertThat(limiter.tryAcquire(key).allowed()).isFalse();
		}
		List<?> keys = (List<?>) redis.server().command("KEYS", "*");
		assertThat(keys).hasSize(5).allSatisfy((key) -> {
			String text = (String) key;
			assertThat(text).hasSizeLessThan(300).startsWith("rk:ratelimit:fixed-window:{keys:");
			// One '{' and one '}' each: the user's braces are encoded, so the hash tag is the whole name and key.
			assertThat(text.chars().filter((c) -> c == '{').count()).isEqualTo(1);
			assertThat(text.chars().filter((c) -> c == '}').count()).isEqualTo(1);
			assertThat(text).endsWith("}");
		});
	}

}
