/**
 * Auto-configuration of rate limiting: the {@link io.rediskit.ratelimit.RateLimiterRegistry} bean with the
 * limiters of {@code redis-kit.rate-limit.limiters}, {@link io.rediskit.ratelimit.RateLimited @RateLimited} on
 * bean methods, Micrometer meters and HTTP 429 with rate-limit headers for calls over their limit.
 */
@NullMarked
package io.rediskit.autoconfigure.ratelimit;

import org.jspecify.annotations.NullMarked;
