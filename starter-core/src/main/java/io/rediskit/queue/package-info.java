/**
 * Delay queues: {@link io.rediskit.queue.QueueRegistry} hands out {@link io.rediskit.queue.RedisQueue}s,
 * at-least-once queues with delayed delivery, acknowledgement, retries with backoff and a dead-letter queue,
 * each operation one Lua script on the server's clock, and {@link io.rediskit.queue.QueueListenerContainer}s
 * that consume them. {@link io.rediskit.queue.QueueFlow}s (a parent due once its children succeeded) and
 * {@link io.rediskit.queue.QueueBatch}es (callbacks once a set of messages finished) are kept by the same scripts.
 */
@NullMarked
package io.rediskit.queue;

import org.jspecify.annotations.NullMarked;
