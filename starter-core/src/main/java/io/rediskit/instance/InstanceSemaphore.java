package io.rediskit.instance;

import java.util.Objects;

/**
 * A semaphore an instance uses, as its heartbeat names it, so that another instance can read its permits in Redis:
 * a semaphore's key depends on its name only, and the total its users give is the one in force unless a total was
 * set in Redis.
 *
 * @param name the semaphore's name
 * @param total the total the instance's handle gives
 */
public record InstanceSemaphore(String name, int total) {

	/**
	 * Checks the parts.
	 * @param name the semaphore's name
	 * @param total the total the instance's handle gives
	 */
	public InstanceSemaphore {
		Objects.requireNonNull(name, "name");
	}

}
