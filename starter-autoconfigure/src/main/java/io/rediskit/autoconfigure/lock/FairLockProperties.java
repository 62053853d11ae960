package io.rediskit.autoconfigure.lock;

/**
 * Fair lock settings, under {@code redis-kit.lock.fair}: the settings every lock engine shares, with their own
 * values, plus how long a waiter keeps its place in line.
 */
public class FairLockProperties extends WaiterLineProperties {

}
