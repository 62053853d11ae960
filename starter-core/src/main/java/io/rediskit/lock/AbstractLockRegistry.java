package io.rediskit.lock;

import java.util.List;

/**
 * What every registry that hands out {@link RedisLock}s offers, written once: {@link LockRegistry} (one
 * deployment), {@link RedlockRegistry} (a majority of independent servers), {@link FairLockRegistry} (arrival
 * order) and {@link ReadWriteLockRegistry} (the write side of each name) are exactly its subclasses. Each is a
 * {@link Locks}, so the {@code @DistributedLock} advisor and the actuator endpoint run on any of them; their
 * lifecycle is {@link LockFamilyRegistry}'s. Locks are cheap, so {@code getLock} returns a new handle each time and
 * keeps no cache: client memory is bounded by the locks held and waited for at a time, however many names are used.
 */
public abstract sealed class AbstractLockRegistry extends LockFamilyRegistry implements Locks
		permits LockRegistry, RedlockRegistry, FairLockRegistry, ReadWriteLockRegistry {

	AbstractLockRegistry() {
	}

	/**
	 * A lock whose metrics are tagged with its own name: use it for a fixed set of names.
	 * @param name the lock name, which may be data such as {@code orders:42}
	 * @return a new handle on that lock
	 * @throws IllegalArgumentException if the name breaks the rule of names given in code: 1 to 128 characters
	 * without control characters ({@link io.rediskit.support.Names#requireData})
	 */
	@Override
	public RedisLock getLock(String name) {
		return shell().getLock(name);
	}

	/**
	 * One lock of a group, such as the lock of one order: the lock is {@code group:key}, its metrics are tagged
	 * with {@code group} only.
	 * @param group the group name, a small fixed set
	 * @param key what selects the lock within the group, such as an order id: data of any length
	 * @return a new handle on that lock
	 * @throws IllegalArgumentException if the group breaks the rule of names given in code: 1 to 128 characters
	 * without control characters ({@link io.rediskit.support.Names#requireData})
	 */
	@Override
	public RedisLock getLock(String group, String key) {
		return shell().getLock(group, key);
	}

	/** @return the locks this registry's owners hold now, oldest first; lost holds are left out */
	@Override
	public List<HeldLock> heldLocks() {
		return shell().heldLocks();
	}

}
