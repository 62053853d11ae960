package io.rediskit.queue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Wakes a waiting consumer: a generation number bumped by {@link #signal()}, so that a signal between reading the
 * generation and waiting is not lost. A {@code ReentrantLock}, not {@code synchronized}, keeps virtual threads
 * unpinned.
 */
final class QueueWakeup {

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	private long generation;

	long generation() {
		this.lock.lock();
		try {
			return this.generation;
		}
		finally {
			this.lock.unlock();
		}
	}

	void signal() {
		this.lock.lock();
		try {
			this.generation++;
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits until signalled after {@code seen} was read, or the time is up.
	 * @return whether a signal came
	 */
	boolean await(long seen, long nanos) throws InterruptedException {
		this.lock.lock();
		try {
			long left = nanos;
			while (this.generation == seen) {
				if (left <= 0) {
					return false;
				}
				left = this.changed.awaitNanos(left);
			}
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** {@link #await(long, long)} in milliseconds. */
	boolean awaitMillis(long seen, long millis) throws InterruptedException {
		return await(seen, TimeUnit.MILLISECONDS.toNanos(millis));
	}

}
