/**
 * Auto-configuration of delay queues: properties, the registry, {@code @QueueListener} containers, metrics,
 * the {@code rediskitqueue} endpoint and the health indicator.
 */
@NullMarked
package io.rediskit.autoconfigure.queue;

import org.jspecify.annotations.NullMarked;
