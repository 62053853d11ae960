package io.rediskit.instance;

import java.time.Instant;

/**
 * One role an instance leads, as it reported it in a heartbeat.
 *
 * @param role the role
 * @param term its term (the fencing token of the role's lock: greater than every earlier term of the role)
 * @param since when this instance took the role, by its clock
 */
public record InstanceLeadership(String role, long term, Instant since) {
}
