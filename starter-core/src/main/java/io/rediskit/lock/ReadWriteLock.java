package io.rediskit.lock;

/**
 * A distributed read-write lock, from {@link ReadWriteLockRegistry#getReadWriteLock(String)}: many readers or one
 * writer across every client. Both sides are {@link RedisLock}s, with the lock's API and guarantees: the
 * {@link java.util.concurrent.locks.Lock} methods owned by the calling thread and reentrant per thread,
 * {@link RedisLock#acquire(java.time.Duration) acquire} and {@link RedisLock#acquireAsync(java.time.Duration)
 * acquireAsync} for a {@link Lease} owned by no thread, watchdog renewal of every hold, a fencing token per hold
 * and lost-lease reports to {@link LockListener}.
 * <ul>
 * <li><b>Sharing.</b> Any number of owners hold the read lock at once; the write lock is held by one owner, and
 * never beside a reader or another writer.</li>
 * <li><b>Writer preference.</b> A writer that waits keeps new readers out, so a continuous stream of readers cannot
 * starve it: it writes once the readers already in release. The price is that a continuous stream of writers can
 * delay readers; choose the lock for data read far more often than written, where that is the right trade.</li>
 * <li><b>Downgrade.</b> A thread that holds the write lock may take the read lock (it passes waiting writers) and
 * then release the write lock, keeping a read hold throughout. Upgrading (taking the write lock while reading)
 * fails at once with {@link IllegalStateException}: two readers that both tried would wait for each other.</li>
 * <li><b>Fencing.</b> Each first hold, read or write, takes the next token of the name: a writer's token is
 * higher than every earlier holder's.</li>
 * </ul>
 * A dead waiting writer keeps new readers out for at most {@link WaiterLineSpec#deadWaiterDelayBound()}.
 * Limits are the lock's: a lease, not a perfect mutex; fence what matters.
 *
 * @param name the lock name
 * @param readLock the shared side
 * @param writeLock the exclusive side
 */
public record ReadWriteLock(String name, RedisLock readLock, RedisLock writeLock)
		implements java.util.concurrent.locks.ReadWriteLock {

	@Override
	public String toString() {
		return "ReadWriteLock[" + this.name + "]";
	}

}
