/**
 * Auto-configuration of the distributed lock: the {@link io.rediskit.lock.LockRegistry} bean,
 * {@link io.rediskit.lock.DistributedLock @DistributedLock} on bean methods, Micrometer meters, the
 * {@code rediskitlock} actuator endpoint and HTTP 409 for locks not acquired.
 */
@NullMarked
package io.rediskit.autoconfigure.lock;

import org.jspecify.annotations.NullMarked;
