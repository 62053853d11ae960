/**
 * Delay queues: {@link io.rediskit.queue.QueueRegistry} hands out {@link io.rediskit.queue.RedisQueue}s,
 * at-least-once queues with delayed delivery, acknowledgement, retries with backoff and a dead-letter queue,
 * each operation one Lua script on the server's clock, and {@link io.rediskit.queue.QueueListenerContainer}s
 * that consume them.
 */
@NullMarked
package io.rediskit.queue;

import org.jspecify.annotations.NullMarked;
