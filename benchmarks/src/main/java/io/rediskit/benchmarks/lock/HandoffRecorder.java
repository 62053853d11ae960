package io.rediskit.benchmarks.lock;

import java.util.concurrent.atomic.LongAdder;

import io.rediskit.benchmarks.LatencySample;

/**
 * Measures how long a contended lock takes to pass from one thread to another: from the moment the holder
 * calls {@code unlock()} to the moment {@code lock()} returns in the next, different thread. A thread that
 * takes the lock again right after releasing it is counted as an acquisition, not as a hand-off.
 * <p>
 * Both methods are called only by the thread that holds the lock, so the lock itself orders them. That
 * order comes through Redis, outside the Java memory model, hence the volatile fields: the next holder must
 * see what the previous one wrote.
 */
final class HandoffRecorder {

	private static final int NOBODY = -1;

	private final LatencySample latencies;

	private final LongAdder acquisitions = new LongAdder();

	private volatile int holder = NOBODY;

	private volatile long releasingAt;

	HandoffRecorder(LatencySample latencies) {
		this.latencies = latencies;
	}

	/**
	 * Called by the new holder right after {@code lock()} returned.
	 * @param thread the index of the holding thread
	 * @param acquiredAt {@link System#nanoTime()} when {@code lock()} returned
	 * @param record whether this acquisition counts, that is, whether the measured window is open
	 */
	void acquired(int thread, long acquiredAt, boolean record) {
		int previous = this.holder;
		if (record) {
			this.acquisitions.increment();
			if (previous != NOBODY && previous != thread) {
				this.latencies.record(acquiredAt - this.releasingAt);
			}
		}
		this.holder = thread;
	}

	/** Called by the holder just before it calls {@code unlock()}. */
	void releasing() {
		this.releasingAt = System.nanoTime();
	}

	/** @return the hand-off latencies recorded */
	LatencySample latencies() {
		return this.latencies;
	}

	/** @return the acquisitions in the measured window, hand-offs and repeated acquisitions alike */
	long acquisitions() {
		return this.acquisitions.sum();
	}

}
