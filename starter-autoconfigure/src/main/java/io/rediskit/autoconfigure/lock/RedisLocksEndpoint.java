package io.rediskit.autoconfigure.lock;

import java.util.List;

import io.rediskit.lock.HeldLock;
import io.rediskit.lock.LockRegistry;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * Actuator endpoint {@code redislocks}: the distributed locks this instance holds now.
 */
@Endpoint(id = "redislocks")
public class RedisLocksEndpoint {

	private final LockRegistry lockRegistry;

	/**
	 * @param lockRegistry the factory whose holds are listed
	 */
	public RedisLocksEndpoint(LockRegistry lockRegistry) {
		this.lockRegistry = lockRegistry;
	}

	/** @return the held locks, oldest first */
	@ReadOperation
	public HeldLocksDescriptor heldLocks() {
		return new HeldLocksDescriptor(this.lockRegistry.heldLocks().stream().map(HeldLockDescriptor::of).toList());
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
	 */
	public record HeldLockDescriptor(String name, String group, String heldSince, long leaseRemainingMillis,
			long fencingToken, int holdCount, boolean watchdog, String owner) {

		static HeldLockDescriptor of(HeldLock lock) {
			return new HeldLockDescriptor(lock.name(), lock.group(), lock.heldSince().toString(),
					lock.leaseRemaining().toMillis(), lock.fencingToken(), lock.holdCount(), lock.watchdog(),
					lock.owner());
		}

	}

}
