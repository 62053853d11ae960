package io.rediskit.ratelimit;

import java.time.Duration;
import java.util.List;

import io.rediskit.ratelimit.RateLimitDecision.Outcome;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import static io.rediskit.ratelimit.RateLimitTesting.MILLI;
import static io.rediskit.ratelimit.RateLimitTesting.SECOND;
import static io.rediskit.ratelimit.RateLimitTesting.T0;
import static io.rediskit.ratelimit.RateLimitTesting.micros;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each algorithm's script with pinned time: decisions, retry-after and reset-after, and a TTL on the key after
 * every call.
 */
class RateLimitScriptsTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	RateLimiterRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = new RateLimiterRegistry(redis.connections(), KeyNaming.defaults(), RateLimitListener.NONE);
	}

	@Test
	void slidingLogAdmitsTheLimitPerSlidingWindowAndSaysWhenTheOldestEntryLeaves() {
		Pinned log = pinned(RateLimitSpec.of(RateLimitAlgorithm.SLIDING_LOG, 3, Duration.ofSeconds(10)));
		log.expect(T0, 1, Outcome.ALLOWED, 2, 0, 10 * SECOND);
		log.expect(T0 + SECOND, 1, Outcome.ALLOWED, 1, 0, 10 * SECOND);
		log.expect(T0 + 2 * SECOND, 1, Outcome.ALLOWED, 0, 0, 10 * SECOND);
		log.expect(T0 + 3 * SECOND, 1, Outcome.REJECTED, 0, 7 * SECOND, 9 * SECOND);
		// An entry leaves the window exactly one period after it was admitted.
		log.expect(T0 + 10 * SECOND, 1, Outcome.ALLOWED, 0, 0, 10 * SECOND);
		// Two permits need the two oldest of {1s, 2s, 10s} gone: the second leaves at 12s.
		log.expect(T0 + 10 * SECOND + 500 * MILLI, 2, Outcome.REJECTED, 0, 1500 * MILLI, 9500 * MILLI);
		assertThat(redis.server().command("ZCARD", log.key())).isEqualTo(3L);
	}

	@Test
	void slidingLogKeepsCallsInTheSameMicrosecondApart() {
		Pinned log = pinned(RateLimitSpec.of(RateLimitAlgorithm.SLIDING_LOG, 10, Duration.ofSeconds(10)));
		for (int i = 0; i < 5; i++) {
			log.expectAllowed(T0, 2);
		}
		assertThat(redis.server().command("ZCARD", log.key())).isEqualTo(10L);
		log.expect(T0, 1, Outcome.REJECTED, 0, 10 * SECOND, 10 * SECOND);
	}

	@Test
	void slidingLogWithTwentyThousandEntriesInTheWindowTrimsThemWithoutUnpacking() {
		Pinned log = pinned(RateLimitSpec.of(RateLimitAlgorithm.SLIDING_LOG, 30_000, Duration.ofHours(1)));
		for (int i = 0; i < 4; i++) {
			log.expectAllowed(T0 + i, 5_000);
		}
		assertThat(redis.server().command("ZCARD", log.key())).isEqualTo(20_000L);
		log.expect(T0 + 10, 10_001, Outcome.REJECTED, 10_000, 3_600 * SECOND - 10, 3_600 * SECOND - 7);
		log.expect(T0 + 3_600 * SECOND + 2, 1, Outcome.ALLOWED, 29_999 - 5_000, 0, 3_600 * SECOND);
		assertThat(redis.server().command("ZCARD", log.key())).isEqualTo(5_001L);
	}

	@Test
	void fixedWindowCountsPerAlignedWindow() {
		Pinned window = pinned(RateLimitSpec.of(RateLimitAlgorithm.FIXED_WINDOW, 3, Duration.ofSeconds(10)));
		window.expect(T0 + 2 * SECOND, 2, Outcome.ALLOWED, 1, 0, 8 * SECOND);
		window.expect(T0 + 4 * SECOND, 1, Outcome.ALLOWED, 0, 0, 6 * SECOND);
		window.expect(T0 + 9 * SECOND, 1, Outcome.REJECTED, 0, SECOND, SECOND);
		// The next window starts empty: a burst of the limit right after one at the end of the last window.
		window.expect(T0 + 10 * SECOND, 3, Outcome.ALLOWED, 0, 0, 10 * SECOND);
		assertThat(redis.server().command("HGET", window.key(), "w")).isEqualTo(Long.toString(T0 + 10 * SECOND));
	}

	@Test
	void slidingWindowWeighsThePreviousWindowByTheOverlap() {
		Pinned sliding = pinned(RateLimitSpec.of(RateLimitAlgorithm.SLIDING_WINDOW, 10, Duration.ofSeconds(10)));
		sliding.expect(T0 + SECOND, 10, Outcome.ALLOWED, 0, 0, 19 * SECOND);
		// 10 + 1 do not fit in this window; in the next, once these 10 weigh 9 or less: 1 s into it.
		sliding.expect(T0 + 9 * SECOND, 1, Outcome.REJECTED, 0, 2 * SECOND, 11 * SECOND);
		// Halfway through the next window the previous 10 weigh 5.
		sliding.expect(T0 + 15 * SECOND, 5, Outcome.ALLOWED, 0, 0, 15 * SECOND);
		// 5 + 1 fit once the previous window weighs 4 or less: 1 s later.
		sliding.expect(T0 + 15 * SECOND, 1, Outcome.REJECTED, 0, SECOND, 15 * SECOND);
		sliding.expect(T0 + 16 * SECOND, 1, Outcome.ALLOWED, 0, 0, 14 * SECOND);
		// 6 in this window: 5 more fit in the next window once these 6 weigh 5 or less (1/6 of it in).
		sliding.expect(T0 + 19 * SECOND, 5, Outcome.REJECTED, 3, SECOND + 10 * SECOND / 6 + 1, 11 * SECOND);
		// Two windows later nothing of the past counts.
		sliding.expect(T0 + 40 * SECOND, 10, Outcome.ALLOWED, 0, 0, 20 * SECOND);
	}

	@Test
	void tokenBucketRefillsContinuouslyUpToTheBurst() {
		Pinned bucket = pinned(RateLimitSpec.of(RateLimitAlgorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(10)).withBurst(5));
		bucket.expect(T0, 5, Outcome.ALLOWED, 0, 0, 5 * SECOND);
		bucket.expect(T0, 1, Outcome.REJECTED, 0, SECOND, 5 * SECOND);
		bucket.expect(T0 + SECOND, 1, Outcome.ALLOWED, 0, 0, 5 * SECOND);
		bucket.expect(T0 + 1500 * MILLI, 3, Outcome.REJECTED, 0, 2500 * MILLI, 4500 * MILLI);
		bucket.expect(T0 + 60 * SECOND, 1, Outcome.ALLOWED, 4, 0, SECOND);
	}

	@ParameterizedTest(name = "{0} keeps its usage when the limit doubles")
	@CsvSource({ "SLIDING_LOG, 4", "SLIDING_WINDOW, 4", "FIXED_WINDOW, 4", "TOKEN_BUCKET, 0", "GCRA, 0" })
	void aNewSpecUnderTheSameNameKeepsTheStoredUsage(RateLimitAlgorithm algorithm, int moreAfterDoubling) {
		RateLimitSpec spec = RateLimitSpec.of(algorithm, 4, Duration.ofSeconds(10));
		Pinned limiter = pinned(spec);
		limiter.expectAllowed(T0, 4);
		limiter.expectRejected(T0 + 1, 1);
		RateLimiter same = this.registry.update(limiter.name, RateLimitSpec.of(algorithm, 8, Duration.ofSeconds(10)));
		assertThat(same).isSameAs(limiter.limiter);
		// Windows have room for the 4 extra permits at once; buckets gained no tokens in 2 µs.
		for (int i = 0; i < moreAfterDoubling; i++) {
			limiter.expectAllowed(T0 + 2, 1);
		}
		limiter.expectRejected(T0 + 2, 1);
		this.registry.update(limiter.name, RateLimitSpec.of(algorithm, 2, Duration.ofSeconds(10)));
		limiter.expectRejected(T0 + 3, 1);
		// The lower limit applied at once; the usage counted before the change fades as usual: within one period,
		// or two for the sliding window, whose previous window weighs into the next.
		limiter.expectAllowed(T0 + 3 + 20 * SECOND, 2);
		limiter.expectRejected(T0 + 4 + 20 * SECOND, 1);
	}

	@Test
	void aChangedConfigurationIsAppliedOnTheNextGetWithoutLosingTheUsage() {
		RateLimitSpec[] configured = { RateLimitSpec.of(RateLimitAlgorithm.GCRA, 4, Duration.ofSeconds(10)) };
		RateLimiterRegistry configuredRegistry = new RateLimiterRegistry(redis.scripts(), redis.connections(),
				KeyNaming.defaults(), List.of(), (name) -> name.equals("api") ? configured[0] : null);
		RedisRateLimiter limiter = RateLimitTesting.internal(configuredRegistry.get("api"));
		assertThat(limiter.evaluate("k", 4, T0).decision().allowed()).isTrue();
		configured[0] = RateLimitSpec.of(RateLimitAlgorithm.GCRA, 8, Duration.ofSeconds(10));
		assertThat(configuredRegistry.get("api").spec()).isEqualTo(configured[0]);
		RateLimitDecision afterRefresh = limiter.evaluate("k", 1, T0 + SECOND).decision();
		assertThat(afterRefresh.allowed()).as("usage kept: 1 s at the new rate refilled under one permit").isFalse();
		// A spec set in code on purpose stays until the configuration changes again.
		configuredRegistry.update("api", RateLimitSpec.of(RateLimitAlgorithm.GCRA, 100, Duration.ofSeconds(10)));
		assertThat(configuredRegistry.get("api").spec().limit()).isEqualTo(100);
		configured[0] = RateLimitSpec.of(RateLimitAlgorithm.GCRA, 6, Duration.ofSeconds(10));
		assertThat(configuredRegistry.get("api").spec()).isEqualTo(configured[0]);
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(RateLimitAlgorithm.class)
	void theStateNeverExpiresBeforeItsResetOnTheServerClock(RateLimitAlgorithm algorithm) {
		// PEXPIRE counts from the server's clock truncated to the millisecond, so a TTL of exactly ceil(reset / 1 ms)
		// can end up to 999 µs before the reset the script computed on TIME's microseconds: the state (the last
		// admissions of a window) vanished early and the bound was exceeded under load. Real time, many calls.
		String name = "expiry-" + algorithm.name().toLowerCase();
		RedisRateLimiter limiter = RateLimitTesting.internal(
				this.registry.create(name, RateLimitSpec.of(algorithm, 5, Duration.ofMillis(200))));
		int checked = 0;
		for (int k = 0; k < 40; k++) {
			String key = RateLimitTesting.redisKey(algorithm, name, "k" + k);
			for (int i = 0; i < 5; i++) {
				RateLimitScripts.Evaluation evaluation = limiter.evaluate("k" + k, 1, null);
				if (!evaluation.decision().allowed()) {
					continue;
				}
				long resetMicros = evaluation.serverMicros() + evaluation.decision().resetAfter().toNanos() / 1_000;
				long expiresMillis = (Long) redis.server().command("PEXPIRETIME", key);
				if (expiresMillis == -2) {
					// The key is gone: on a slow machine the reset may have passed since the call, which is
					// allowed; gone while the server's clock is still before the reset is the defect.
					List<?> time = (List<?>) redis.server().command("TIME");
					long nowMicros = Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
					assertThat(nowMicros).as("%s: key gone before its reset, key %d call %d", algorithm, k, i)
						.isGreaterThanOrEqualTo(resetMicros - 100);
					checked++;
					continue;
				}
				// Redis 7.2 and later count a script's TTL from the script's start, a few µs before its TIME.
				assertThat(expiresMillis * MILLI).as("%s: key expiry (ms) against the reset (µs), key %d call %d", algorithm, k, i)
					.isGreaterThanOrEqualTo(resetMicros - 100);
				checked++;
			}
		}
		assertThat(checked).as("admissions checked").isGreaterThan(100);
	}

	private Pinned pinned(RateLimitSpec spec) {
		String name = spec.algorithm().name().toLowerCase().replace('_', '-');
		return new Pinned(name, RateLimitTesting.internal(this.registry.create(name, spec)), "user-1");
	}

	/** Calls one key of one limiter at pinned times, asserting the decision and the key's TTL. */
	final class Pinned {

		final String name;

		final RedisRateLimiter limiter;

		final String userKey;

		Pinned(String name, RedisRateLimiter limiter, String userKey) {
			this.name = name;
			this.limiter = limiter;
			this.userKey = userKey;
		}

		String key() {
			return RateLimitTesting.redisKey(this.limiter.spec().algorithm(), this.name, this.userKey);
		}

		RateLimitDecision call(long now, int permits) {
			RateLimitScripts.Evaluation evaluation = this.limiter.evaluate(this.userKey, permits, now);
			assertThat(evaluation.serverMicros()).isEqualTo(now);
			Long ttl = (Long) redis.server().command("PTTL", key());
			assertThat(ttl).as("TTL of %s after a call at %d", key(), now).isPositive();
			return evaluation.decision();
		}

		void expect(long now, int permits, Outcome outcome, long remaining, long retryAfterMicros,
				long resetAfterMicros) {
			RateLimitDecision decision = call(now, permits);
			assertThat(decision).as("%d permits at T0 + %d µs", permits, now - T0)
				.isEqualTo(new RateLimitDecision(outcome, this.limiter.spec().capacity(), remaining,
						micros(retryAfterMicros), micros(resetAfterMicros)));
		}

		void expectAllowed(long now, int permits) {
			assertThat(call(now, permits).outcome()).as("%d permits at T0 + %d µs", permits, now - T0)
				.isEqualTo(Outcome.ALLOWED);
		}

		void expectRejected(long now, int permits) {
			assertThat(call(now, permits).outcome()).as("%d permits at T0 + %d µs", permits, now - T0)
				.isEqualTo(Outcome.REJECTED);
		}

	}

}
