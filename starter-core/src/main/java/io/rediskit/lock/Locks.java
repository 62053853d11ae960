package io.rediskit.lock;

import java.time.Duration;
import java.util.List;

/**
 * What every entry point of the lock offers, whatever the engine behind it: {@link LockRegistry} (one Redis
 * deployment) and {@link RedlockRegistry} (a majority of independent servers). Code written against it, such as
 * the {@code @DistributedLock} advisor and the actuator endpoint, runs on either without asking which.
 */
public interface Locks {

	/**
	 * A lock whose metrics are tagged with its own name: use it for a fixed set of names.
	 * @param name the lock name
	 * @return a handle on that lock
	 * @throws IllegalArgumentException if the name breaks the rule of names given in code: 1 to 128 characters
	 * without control characters ({@link io.rediskit.support.Names#requireData})
	 */
	RedisLock getLock(String name);

	/**
	 * One lock of a group, such as the lock of one order: the lock is {@code group:key}, its metrics are tagged
	 * with {@code group} only.
	 * @param group the group name, a small fixed set
	 * @param key what selects the lock within the group, such as an order id: data of any length
	 * @return a handle on that lock
	 * @throws IllegalArgumentException if the group breaks the rule of names given in code: 1 to 128 characters
	 * without control characters ({@link io.rediskit.support.Names#requireData})
	 */
	RedisLock getLock(String group, String key);

	/** @return how long {@link RedisLock#acquire()} and {@code @DistributedLock} wait when they name no wait */
	Duration defaultWaitTime();

	/** @return the shortest lease a call may ask for */
	Duration minimumLeaseTime();

	/** @return the locks this entry point's owners hold now, oldest first; lost holds are left out */
	List<HeldLock> heldLocks();

}
