/**
 * Distributed lock: leases on Redis keys with owner tokens, reentrancy, watchdog renewal, fencing tokens,
 * pub/sub wake-up and blocking or asynchronous acquisition.
 * <p>
 * The parts, top-down: {@link io.rediskit.lock.LockRegistry}, the entry point and the lifecycle, hands out
 * {@link io.rediskit.lock.RedisLock}s; a lock runs one {@code Acquisition} (blocking) or
 * {@code AsyncAcquisition} per call and its releases itself; {@code LockScripts} is every Redis call, one
 * method and one script per operation, through the {@link io.rediskit.support.ScriptExecutor};
 * {@code LockHolds} keeps the holds and owner ids, {@code ReleaseSignals} the local waiters and release
 * messages, {@code LockWatchdog} renews leases, and {@code LockBackground} runs the scheduler and the
 * subscription between {@code start()} and {@code stop()}. Nothing calls back up to the registry.
 */
@NullMarked
package io.rediskit.lock;

import org.jspecify.annotations.NullMarked;
