package io.rediskit.lock;

import java.time.Duration;
import java.time.Instant;

/**
 * A lock this factory's owners hold right now, as reported by {@link LockRegistry#heldLocks()}.
 *
 * @param name the full lock name
 * @param group the lock group's name (the metric tag)
 * @param heldSince when it was first acquired, by this JVM's clock
 * @param leaseRemaining time until the lease ends unless renewed, estimated from the last extension
 * @param fencingToken the hold's fencing token
 * @param holdCount how many times the owner holds it (reentrancy)
 * @param watchdog whether the watchdog renews it
 * @param owner {@code thread:<id>} for thread ownership, {@code lease} for a {@link Lease}
 */
public record HeldLock(String name, String group, Instant heldSince, Duration leaseRemaining, long fencingToken,
		int holdCount, boolean watchdog, String owner) {
}
