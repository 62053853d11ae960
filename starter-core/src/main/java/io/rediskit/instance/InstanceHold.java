package io.rediskit.instance;

import java.time.Duration;
import java.time.Instant;

/**
 * One lock, permit or role an instance holds, as it reported it in a heartbeat.
 *
 * @param kind the member of the lock family, such as {@code single}, {@code semaphore}, {@code readwrite},
 * {@code fair} or {@code redlock}
 * @param name the lock's name
 * @param fencingToken the hold's fencing token
 * @param leaseRemaining the lease left when the heartbeat was sent (as listed: when the list was read)
 * @param owner how the instance holds it, such as {@code thread:42} or {@code lease}
 * @param heldSince when it was first acquired, by the holder's clock
 */
public record InstanceHold(String kind, String name, long fencingToken, Duration leaseRemaining, String owner,
		Instant heldSince) {
}
