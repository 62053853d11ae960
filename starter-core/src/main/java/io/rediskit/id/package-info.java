/**
 * Ids: {@link io.rediskit.id.IdGeneratorRegistry} hands out {@link io.rediskit.id.IdGenerator}s, cluster-wide
 * generators of unique, per-instance increasing numbers, taken from Redis in blocks (one round trip per block).
 */
@NullMarked
package io.rediskit.id;

import org.jspecify.annotations.NullMarked;
