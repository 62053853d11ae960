/**
 * Distributed lock: {@link io.rediskit.lock.LockRegistry} hands out {@link io.rediskit.lock.RedisLock}s,
 * leases on Redis keys with owner tokens, reentrancy, watchdog renewal, fencing tokens and pub/sub wake-up.
 */
@NullMarked
package io.rediskit.lock;

import org.jspecify.annotations.NullMarked;
