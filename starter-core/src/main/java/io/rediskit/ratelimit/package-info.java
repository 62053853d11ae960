/**
 * Rate limiters: {@link io.rediskit.ratelimit.RateLimiterRegistry} hands out
 * {@link io.rediskit.ratelimit.RateLimiter}s that decide with one Lua script per call, on the server's clock,
 * with one of five {@link io.rediskit.ratelimit.RateLimitAlgorithm algorithms}.
 */
@NullMarked
package io.rediskit.ratelimit;

import org.jspecify.annotations.NullMarked;
