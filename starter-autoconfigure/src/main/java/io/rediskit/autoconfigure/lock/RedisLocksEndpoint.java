package io.rediskit.autoconfigure.lock;

import java.util.ArrayList;
import java.util.List;

import io.rediskit.lock.HeldLock;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.Locks;
import io.rediskit.lock.RedlockRegistry;
import io.rediskit.lock.SemaphoreRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * Actuator endpoint {@code redislocks}: the distributed locks this instance holds now.
 */
@Endpoint(id = "redislocks")
public class RedisLocksEndpoint {

	private final Locks lockRegistry;

	private final @Nullable Locks redlockRegistry;

	private final @Nullable SemaphoreRegistry semaphoreRegistry;

	/**
	 * @param lockRegistry the factory whose holds are listed
	 */
	public RedisLocksEndpoint(LockRegistry lockRegistry) {
		this(lockRegistry, null);
	}

	/**
	 * @param lockRegistry the registry whose holds are listed
	 * @param redlockRegistry the Redlock registry whose holds are listed too, if any
	 */
	public RedisLocksEndpoint(LockRegistry lockRegistry, @Nullable RedlockRegistry redlockRegistry) {
		this(lockRegistry, redlockRegistry, null);
	}

	/**
	 * @param lockRegistry the registry whose holds are listed
	 * @param redlockRegistry the Redlock registry whose holds are listed too, if any
	 * @param semaphoreRegistry the semaphore registry whose open leases are listed too, if any
	 */
	public RedisLocksEndpoint(LockRegistry lockRegistry, @Nullable RedlockRegistry redlockRegistry,
			@Nullable SemaphoreRegistry semaphoreRegistry) {
		this.lockRegistry = lockRegistry;
		this.redlockRegistry = redlockRegistry;
		this.semaphoreRegistry = semaphoreRegistry;
	}

	/** @return the held locks, single-node ones first, then Redlock, then semaphore leases, each kind oldest first */
	@ReadOperation
	public HeldLocksDescriptor heldLocks() {
		List<HeldLockDescriptor> locks = new ArrayList<>();
		this.lockRegistry.heldLocks().forEach((lock) -> locks.add(HeldLockDescriptor.of(lock, "single")));
		if (this.redlockRegistry != null) {
			this.redlockRegistry.heldLocks().forEach((lock) -> locks.add(HeldLockDescriptor.of(lock, "redlock")));
		}
		if (this.semaphoreRegistry != null) {
			this.semaphoreRegistry.heldPermits()
				.forEach((lease) -> locks.add(HeldLockDescriptor.of(lease, "semaphore")));
		}
		return new HeldLocksDescriptor(locks);
	}

	/**
	 * The endpoint's response.
	 * @param locks the held locks, oldest first
	 */
	public record HeldLocksDescriptor(List<HeldLockDescriptor> locks) {
	}

	/**
	 * One held lock.
	 * @param name full lock name
	 * @param group lock group (metric tag)
	 * @param heldSince ISO-8601 instant of the first acquisition
	 * @param leaseRemainingMillis estimated time until the lease ends unless renewed
	 * @param fencingToken the hold's fencing token
	 * @param holdCount reentrant holds
	 * @param watchdog whether the watchdog renews it
	 * @param owner {@code thread:<id>} or {@code lease}
	 * @param kind {@code single} for the single-node lock, {@code redlock} for Redlock (whose remaining lease is
	 * its validity), {@code semaphore} for one acquisition of semaphore permits
	 */
	public record HeldLockDescriptor(String name, String group, String heldSince, long leaseRemainingMillis,
			long fencingToken, int holdCount, boolean watchdog, String owner, String kind) {

		static HeldLockDescriptor of(HeldLock lock, String kind) {
			return new HeldLockDescriptor(lock.name(), lock.group(), lock.heldSince().toString(),
					lock.leaseRemaining().toMillis(), lock.fencingToken(), lock.holdCount(), lock.watchdog(),
					lock.owner(), kind);
		}

	}

}
