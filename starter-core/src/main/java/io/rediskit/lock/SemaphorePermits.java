package io.rediskit.lock;

/**
 * A semaphore's permits as Redis has them now ({@link RedisSemaphore#permits()}).
 * @param total the total in force: the one {@link RedisSemaphore#setTotal(int)} stored, else the handle's
 * @param held the permits held by leases that have not ended; may exceed the total after it was shrunk
 */
public record SemaphorePermits(int total, int held) {
}
