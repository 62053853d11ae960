package io.rediskit.ratelimit;

import java.time.Duration;

import io.rediskit.support.KeyNaming;

/** Shared pieces of the rate-limit tests. */
final class RateLimitTesting {

	/** A pinned time: the start of an hour, so every period that divides an hour starts a window here. */
	static final long T0 = 1_700_002_800_000_000L;

	static final long MILLI = 1_000L;

	static final long SECOND = 1_000_000L;

	private RateLimitTesting() {
	}

	static String redisKey(RateLimitAlgorithm algorithm, String limiter, String key) {
		return KeyNaming.defaults().key("ratelimit:" + algorithm.keyPart(), limiter + ":" + key);
	}

	static RedisRateLimiter internal(RateLimiter limiter) {
		return (RedisRateLimiter) limiter;
	}

	static Duration micros(long micros) {
		return Duration.ofNanos(micros * 1000);
	}

}
