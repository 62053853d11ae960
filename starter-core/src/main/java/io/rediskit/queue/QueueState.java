package io.rediskit.queue;

import org.jspecify.annotations.Nullable;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The runtime state of one queue name, shared by its handles: keys, the spec in force, the wake-up of its
 * polling callers and when expired deliveries were last taken back.
 */
final class QueueState {

	final String name;

	final QueueScripts.Keys keys;

	final QueueWakeup pollWakeup = new QueueWakeup();

	/** Wakes the polling callers; one instance, so that watching the channel again adds nothing. */
	final Runnable pollSignal = this.pollWakeup::signal;

	private final AtomicLong lastRequeue = new AtomicLong(System.nanoTime() - Long.MAX_VALUE / 2);

	private volatile QueueSpec spec;

	// Volatile, created under the lock once: every enqueue and every ack of a container reads them, from many
	// threads, without taking a lock.
	private volatile @Nullable EnqueueBatcher enqueueBatcher;

	private volatile @Nullable AckBatcher ackBatcher;

	QueueState(String name, QueueScripts.Keys keys, QueueSpec spec) {
		this.name = name;
		this.keys = keys;
		this.spec = spec;
	}

	/**
	 * @param scripts the registry's scripts
	 * @return the queue's batcher of single-message enqueues, created on first use
	 */
	EnqueueBatcher enqueueBatcher(QueueScripts scripts) {
		EnqueueBatcher batcher = this.enqueueBatcher;
		if (batcher != null) {
			return batcher;
		}
		synchronized (this) {
			batcher = this.enqueueBatcher;
			if (batcher == null) {
				batcher = new EnqueueBatcher((messages) -> scripts.enqueue(this.keys, messages, null));
				this.enqueueBatcher = batcher;
			}
			return batcher;
		}
	}

	/**
	 * @param scripts the registry's scripts
	 * @return the queue's batcher of acks, created on first use
	 */
	AckBatcher ackBatcher(QueueScripts scripts) {
		AckBatcher batcher = this.ackBatcher;
		if (batcher != null) {
			return batcher;
		}
		synchronized (this) {
			batcher = this.ackBatcher;
			if (batcher == null) {
				batcher = new AckBatcher((pairs) -> scripts.ackAll(this.keys, pairs, null));
				this.ackBatcher = batcher;
			}
			return batcher;
		}
	}

	QueueSpec spec() {
		return this.spec;
	}

	void setSpec(QueueSpec spec) {
		this.spec = spec;
	}

	/**
	 * Whether it is time to take back expired deliveries: at most once per poll interval per JVM, as every
	 * consumer polls; the claim of one that is due takes it.
	 */
	boolean requeueDue() {
		long now = System.nanoTime();
		long last = this.lastRequeue.get();
		return now - last >= this.spec.pollInterval().toNanos() && this.lastRequeue.compareAndSet(last, now);
	}

}
