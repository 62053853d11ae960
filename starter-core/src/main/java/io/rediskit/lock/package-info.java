/**
 * Distributed lock: leases on Redis keys with owner tokens, reentrancy, watchdog renewal, fencing tokens,
 * pub/sub wake-up and blocking or asynchronous acquisition.
 * <p>
 * The parts, top-down, one seam for the whole lock family: {@link io.rediskit.lock.Locks} is what every entry
 * point offers ({@link io.rediskit.lock.LockRegistry} on one deployment, {@link io.rediskit.lock.RedlockRegistry}
 * on a majority of independent servers); both hand out the one handle, {@link io.rediskit.lock.RedisLock} with
 * its {@link io.rediskit.lock.Lease}. Every registry of the family extends the public, sealed
 * {@link io.rediskit.lock.LockFamilyRegistry} (lifecycle, threads, defaults), and those that hand out locks
 * {@link io.rediskit.lock.AbstractLockRegistry} too: the shared public methods are written once there. Behind the
 * handle, the shell is written once: {@code LockShell}, which each registry builds around its own engine, wires it
 * and hands out the lock's handles, {@code LockHolds} keeps the holds and owner ids, {@code Release} is
 * one release's state machine, {@code LockWatchdog} renews leases and {@code LockBackground} runs the watchdog and
 * the engine's background work on the registry's {@code Background} between {@code start()} and {@code stop()}. The package-private {@code Engine} is the only thing that
 * talks to Redis: the engines on one deployment over {@code ScriptedEngine} ({@code SingleNodeEngine} with
 * {@code LockScripts}, one script per operation, {@code ReleaseSignals}, {@code Acquisition} and
 * {@code AsyncAcquisition}; the semaphore's, fair and read-write lock's), and {@code QuorumEngine}
 * ({@code RedlockNodes}, {@code RedlockAcquisition}). The waits without a thread are written once:
 * {@code SignalledWait} and {@code PollingWait}. Nothing calls back up to the registry.
 */
@NullMarked
package io.rediskit.lock;

import org.jspecify.annotations.NullMarked;
