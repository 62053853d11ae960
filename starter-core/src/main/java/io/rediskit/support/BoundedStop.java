package io.rediskit.support;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * How every stop and close of redis-kit waits: never for good. A stop that waits on something it does not
 * control (handlers finishing, a lock a step in progress holds) waits at most a bound, then gives the step up,
 * logs one warning naming what it abandoned, and goes on, so that an application's shutdown never hangs on Redis,
 * on the driver, or on a connection factory destroyed first. What never needs a wait is not waited for: a
 * subscription ({@link Subscriptions}) closes its connection asynchronously, and an owner that must know it
 * closed (the cache manager, before the application's connection factory shuts its client down) waits for
 * {@link Subscriptions#closeAsync()} within {@link #TIMEOUT}.
 * <p>
 * The bound is {@link #TIMEOUT} for a step that has no timeout of its own; a step that has one (a queue's
 * shutdown timeout for its handlers) waits that plus {@link #TIMEOUT}. What is abandoned is left to end on its
 * own thread. Interrupts do not shorten the wait (a stop must still try to free what it holds) and the interrupt
 * flag is restored. Internal to redis-kit.
 */
public final class BoundedStop {

	/**
	 * How long a stop waits for a step with no timeout of its own, and the longest wait for a subscription's
	 * confirmation: longer than a healthy step takes with Redis unreachable, far shorter than Spring's default 30 s
	 * per shutdown phase.
	 */
	public static final Duration TIMEOUT = Duration.ofSeconds(10);

	private static final Log logger = LogFactory.getLog(BoundedStop.class);

	private BoundedStop() {
	}

	/**
	 * Waits for a stop that completes a future, up to a bound.
	 * @param done completed when the stop is done
	 * @param bound how long to wait
	 * @param what what stops, for the log: "the listener container of queue 'orders'"
	 * @return whether the future completed in time (normally or not)
	 */
	public static boolean await(Future<?> done, Duration bound, String what) {
		long deadline = System.nanoTime() + bound.toNanos();
		boolean interrupted = false;
		try {
			while (true) {
				try {
					done.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
					return true;
				}
				catch (ExecutionException | CancellationException ex) {
					// Done, if not cleanly: the stop's own callback says how.
					return true;
				}
				catch (TimeoutException ex) {
					logger.warn("Stopping " + what + " did not end within " + bound.toMillis()
							+ " ms; stopped waiting for it, and it goes on in the background");
					return false;
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Acquires a lock that a step in progress may hold (a subscription being made), waiting up to
	 * {@link #TIMEOUT}.
	 * @param lock the lock
	 * @param what what the stop would have done under the lock, for the log
	 * @return whether the caller holds the lock now and must unlock it
	 */
	public static boolean lock(Lock lock, String what) {
		long deadline = System.nanoTime() + TIMEOUT.toNanos();
		boolean interrupted = false;
		try {
			while (true) {
				try {
					if (lock.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
						return true;
					}
					logger.warn("Stopping " + what + " did not get the lock a step in progress holds within "
							+ TIMEOUT.toMillis() + " ms; went on without it");
					return false;
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
