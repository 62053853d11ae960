package io.rediskit.benchmarks.lock;

import java.util.concurrent.locks.Lock;

/** What the benchmark loop calls on one lock: take it, then give it back. */
interface LockCycle {

	/** Takes the lock, waiting as long as it takes. */
	void lock();

	/** Gives the lock back. */
	void unlock();

	/**
	 * Adapts a library's {@link Lock}.
	 * @param lock the lock
	 * @return its {@code lock()} and {@code unlock()}
	 */
	static LockCycle of(Lock lock) {
		return new LockCycle() {

			@Override
			public void lock() {
				lock.lock();
			}

			@Override
			public void unlock() {
				lock.unlock();
			}

		};
	}

}
