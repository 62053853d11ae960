package io.rediskit.ratelimit;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.ReturnType;

import static io.rediskit.ratelimit.RateLimitTesting.SECOND;
import static io.rediskit.ratelimit.RateLimitTesting.T0;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The GCRA script against the semantics of redis-cell's {@code CL.THROTTLE key max_burst count period quantity}:
 * the same five replies for the same calls at the same times. The expected replies come from
 * {@link RedisCellModel}, a transcription of redis-cell's algorithm in integer nanoseconds that shares nothing
 * with the script, and from the example in redis-cell's documentation.
 */
class GcraRedisCellTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	@BeforeEach
	void clean() {
		redis.flushAll();
	}

	@Test
	void theDocumentedExample() {
		// CL.THROTTLE user123 15 30 60 1 -> 0, 16, 15, -1, 2
		assertThat(throttle("user123", 15, 30, 60 * SECOND, 1, T0)).containsExactly(0L, 16L, 15L, -1L, 2L);
	}

	@Test
	void aBurstOfSixteenThenOnePerTwoSeconds() {
		for (int i = 0; i < 16; i++) {
			assertThat(throttle("k", 15, 30, 60 * SECOND, 1, T0)).containsExactly(0L, 16L, 15L - i, -1L, 2L * (i + 1));
		}
		assertThat(throttle("k", 15, 30, 60 * SECOND, 1, T0)).containsExactly(1L, 16L, 0L, 2L, 32L);
		assertThat(throttle("k", 15, 30, 60 * SECOND, 1, T0 + 2 * SECOND)).containsExactly(0L, 16L, 0L, -1L, 32L);
		// More than the limit at once can never be granted: retry-after -1.
		assertThat(throttle("other", 15, 30, 60 * SECOND, 17, T0)).containsExactly(1L, 16L, 16L, -1L, 0L);
	}

	@Test
	void aPartialSecondIsRoundedUpAsRedisCellRoundsIt() {
		// CL.THROTTLE k 0 2 3 1: one request per 1.5 s; redis-cell answers 2 seconds, never 1 (too early).
		assertThat(throttle("k", 0, 2, 3 * SECOND, 1, T0)).containsExactly(0L, 1L, 0L, -1L, 2L);
		assertThat(throttle("k", 0, 2, 3 * SECOND, 1, T0)).containsExactly(1L, 1L, 0L, 2L, 2L);
		assertThat(new RedisCellModel(0, 2, 3_000_000_000L).throttle(1, T0 * 1000)).containsExactly(0L, 1L, 0L, -1L,
				2L);
	}

	@ParameterizedTest(name = "random calls, seed {0}")
	@ValueSource(longs = { 1, 2, 3, 4, 5, 6, 7, 8 })
	void randomCallsGiveTheRepliesRedisCellWould(long seed) {
		Random random = new Random(seed);
		int maxBurst = random.nextInt(20);
		int count = 1 + random.nextInt(50);
		// Whole microseconds per emission: redis-cell counts in nanoseconds, the script in microseconds.
		long emissionMicros = 1_000 + random.nextInt(5_000_000);
		long periodMicros = emissionMicros * count;
		RedisCellModel model = new RedisCellModel(maxBurst, count, periodMicros * 1000);
		long now = T0;
		for (int call = 0; call < 300; call++) {
			now += (long) (random.nextDouble() * random.nextDouble() * 3 * emissionMicros);
			int quantity = random.nextInt(maxBurst + 4);
			List<Long> expected = model.throttle(quantity, now * 1000);
			assertThat(throttle("k", maxBurst, count, periodMicros, quantity, now))
				.as("call %d: quantity %d at T0 + %d µs (max_burst %d, count %d, period %d µs)", call, quantity,
						now - T0, maxBurst, count, periodMicros)
				.isEqualTo(expected);
		}
	}

	/**
	 * The script's reply in the form CL.THROTTLE gives it: durations in whole seconds, a partial second rounded
	 * up, as redis-cell rounds it and as redis-kit's 429 handler does.
	 */
	private static List<Long> throttle(String key, long maxBurst, long count, long periodMicros, long quantity,
			long nowMicros) {
		List<Object> reply = redis.scripts()
			.execute(RateLimitScripts.script(RateLimitAlgorithm.GCRA), ReturnType.MULTI, 1, bytes(key), bytes(maxBurst), bytes(count),
					bytes(periodMicros), bytes(quantity), bytes(nowMicros));
		assertThat(reply).hasSize(6);
		long retryAfter = (Long) reply.get(3);
		return List.of((Long) reply.get(0), (Long) reply.get(1), (Long) reply.get(2),
				(retryAfter < 0) ? -1L : ceilDiv(retryAfter, SECOND), ceilDiv((Long) reply.get(4), SECOND));
	}

	// Math.ceilDiv arrived in Java 18; durations here are never negative.
	static long ceilDiv(long dividend, long divisor) {
		return (dividend + divisor - 1) / divisor;
	}

	private static byte[] bytes(Object value) {
		return String.valueOf(value).getBytes(StandardCharsets.US_ASCII);
	}

	/**
	 * redis-cell's {@code CL.THROTTLE} for one key, in integer nanoseconds as redis-cell computes: emission
	 * interval {@code period / count}, delay tolerance {@code emission x (max_burst + 1)}, a stored theoretical
	 * arrival time that expires when it is reached.
	 */
	static final class RedisCellModel {

		private final long limit;

		private final long emission;

		private final long tolerance;

		private long tat = -1;

		RedisCellModel(long maxBurst, long count, long periodNanos) {
			this.limit = maxBurst + 1;
			this.emission = periodNanos / count;
			this.tolerance = this.emission * (maxBurst + 1);
		}

		List<Long> throttle(long quantity, long now) {
			long increment = this.emission * quantity;
			long stored = (this.tat > now) ? this.tat : now;
			long newTat = ((now > stored) ? now : stored) + increment;
			long diff = now - (newTat - this.tolerance);
			boolean limited = diff < 0;
			long retryAfter = -1;
			long ttl;
			if (limited) {
				if (increment <= this.tolerance) {
					retryAfter = -diff;
				}
				ttl = stored - now;
			}
			else {
				ttl = newTat - now;
				this.tat = newTat;
			}
			long remaining = 0;
			long next = this.tolerance - ttl;
			if (next > -this.emission) {
				remaining = (long) ((double) (next / 1000) / (this.emission / 1000));
			}
			// redis-cell rounds a partial second up, so that a client never retries too early.
			return new ArrayList<>(List.of(limited ? 1L : 0L, this.limit, remaining,
					(retryAfter < 0) ? -1L : ceilDiv(retryAfter, 1_000_000_000L), ceilDiv(ttl, 1_000_000_000L)));
		}

	}

}
