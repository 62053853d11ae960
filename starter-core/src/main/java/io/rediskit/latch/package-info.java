/**
 * Distributed count-down latch: {@link io.rediskit.latch.LatchRegistry} hands out
 * {@link io.rediskit.latch.RedisCountDownLatch}es whose count lives in Redis, counted down once per request (a
 * replayed count-down counts once) and awaited by threads or asynchronously. A latch holds no lease, so it has no
 * watchdog: its registry only runs the opened channels' waiters ({@code io.rediskit.support.ReleaseSignals}, which
 * the lock family uses too) and the timers of asynchronous waits ({@code PollingWait}) on its
 * {@code Background}. Scripts under {@code META-INF/redis-kit/scripts/latch/}; configured under
 * {@code redis-kit.lock.latch}, a member of the lock family.
 */
@NullMarked
package io.rediskit.latch;

import org.jspecify.annotations.NullMarked;
