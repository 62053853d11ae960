package io.rediskit.lock;

/**
 * Observes semaphores, for metrics and logging: the events of {@link LockListener} with the semaphore's name (or
 * group) where a lock's would be: renewals, lost leases, failed releases. The waits for permits and the holds are
 * observations ({@code rediskit.lock.wait} and {@code rediskit.lock.hold} of kind {@code semaphore}), not events;
 * a lost lease means the permits came back to the semaphore before their holder released them. Every method
 * has an empty default; implementations must be thread-safe and fast, since they run on the callers' and the
 * Redis driver's threads. A distinct type, so that a lock listener bean does not hear of semaphores.
 */
public interface SemaphoreListener extends LockListener {

}
