package io.rediskit.ratelimit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;

import io.rediskit.ratelimit.RateLimitScripts.Evaluation;

/** Many threads asking one limiter for one key, recording every admission with its server time and spec. */
final class RateLimitLoad {

	private RateLimitLoad() {
	}

	/** Something to wait for before the load starts. */
	interface Gate {

		void pass() throws InterruptedException;

	}

	/**
	 * One admission.
	 * @param micros server time of the decision
	 * @param permits permits granted
	 * @param spec the spec that granted them
	 */
	record Granted(long micros, int permits, RateLimitSpec spec) {

		AdmissionChecker.Admission admission() {
			return new AdmissionChecker.Admission(this.micros, this.permits);
		}

		String toLine() {
			return "a " + this.micros + " " + this.permits + " " + this.spec.limit();
		}

	}

	/**
	 * Runs the load until the deadline.
	 * @param limiter the limiter
	 * @param key the one key all threads hit
	 * @param threads how many threads
	 * @param durationNanos how long
	 * @param maxPermits each call asks for 1 to this many permits
	 * @return every admission
	 */
	static List<Granted> run(RedisRateLimiter limiter, String key, int threads, long durationNanos, int maxPermits)
			throws InterruptedException {
		return run(limiter, key, threads, durationNanos, maxPermits, () -> {
		});
	}

	/**
	 * Runs the load until the deadline, starting once every thread is ready and {@code beforeStart} returned.
	 * @param beforeStart runs when the threads are ready, such as a wait for a moment in server time
	 * @return every admission
	 */
	static List<Granted> run(RedisRateLimiter limiter, String key, int threads, long durationNanos, int maxPermits,
			Gate beforeStart) throws InterruptedException {
		long[] deadline = new long[1];
		CountDownLatch ready = new CountDownLatch(threads);
		List<List<Granted>> perThread = new ArrayList<>();
		List<Thread> workers = new ArrayList<>();
		CountDownLatch start = new CountDownLatch(1);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		for (int t = 0; t < threads; t++) {
			List<Granted> admitted = new ArrayList<>();
			perThread.add(admitted);
			Thread worker = new Thread(() -> {
				try {
					ready.countDown();
					start.await();
					while (System.nanoTime() - deadline[0] < 0) {
						int permits = 1 + ThreadLocalRandom.current().nextInt(maxPermits);
						Evaluation evaluation = limiter.evaluate(key, permits, null);
						if (evaluation.decision().fromFailurePolicy()) {
							throw new AssertionError("Redis failed to answer during the load");
						}
						if (evaluation.decision().allowed()) {
							admitted.add(new Granted(evaluation.serverMicros(), permits, evaluation.spec()));
						}
					}
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
			}, "load-" + t);
			workers.add(worker);
			worker.start();
		}
		ready.await();
		beforeStart.pass();
		// Published to the threads by the latch.
		deadline[0] = System.nanoTime() + durationNanos;
		start.countDown();
		for (Thread worker : workers) {
			worker.join();
		}
		if (failure.get() != null) {
			throw new AssertionError("A load thread failed", failure.get());
		}
		List<Granted> all = new ArrayList<>();
		perThread.forEach(all::addAll);
		return all;
	}

}
