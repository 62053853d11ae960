package io.rediskit.autoconfigure.lock;

/**
 * Read-write lock settings, under {@code redis-kit.lock.read-write}: the settings every lock engine shares, with
 * their own values, plus how long a waiting writer keeps new readers out.
 */
public class ReadWriteLockProperties extends WaiterLineProperties {

}
