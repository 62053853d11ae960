/**
 * The rate limiter benchmark: {@link io.rediskit.ratelimit.RateLimiter} in each algorithm against Redisson's
 * {@code RRateLimiter} and Bucket4j's Lettuce backend, for throughput, for admissions beyond the bound under
 * contention, and for admissions over time under a bursty load.
 */
@NullMarked
package io.rediskit.benchmarks.ratelimit;

import org.jspecify.annotations.NullMarked;
