package io.rediskit.support;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * How every stop and close of redis-kit waits: never for good. A stop that waits on something it does not
 * control (Spring Data's listener container, a lock a subscription in progress holds, handlers finishing) waits
 * at most a bound, then gives the step up, logs one warning naming what it abandoned, and goes on, so that an
 * application's shutdown never hangs on Redis, on the driver, or on a connection factory destroyed first.
 * <p>
 * The bound is {@link #TIMEOUT} for a step that has no timeout of its own; a step that has one (a queue's
 * shutdown timeout for its handlers) waits that plus {@link #TIMEOUT}. What is abandoned is left to end on its
 * own thread: a container stuck in Spring Data's subscription retry keeps that thread and its connection until
 * the process ends, which the warning says. Interrupts do not shorten the wait (a stop must still try to free
 * what it holds) and the interrupt flag is restored. Internal to redis-kit.
 */
public final class BoundedStop {

	/**
	 * How long a stop waits for a step with no timeout of its own: longer than a healthy stop takes with Redis
	 * unreachable (Spring Data's container waits up to 2 s twice for its subscription's state), far shorter than
	 * Spring's default 30 s per shutdown phase.
	 */
	public static final Duration TIMEOUT = Duration.ofSeconds(10);

	private static final Log logger = LogFactory.getLog(BoundedStop.class);

	private static final AtomicInteger threads = new AtomicInteger();

	private BoundedStop() {
	}

	/** A step of a stop, which may throw. */
	@FunctionalInterface
	public interface Step {

		void run() throws Exception;

	}

	/**
	 * Runs a step of a stop on a daemon thread of its own and waits for it up to {@link #TIMEOUT}. The step runs
	 * on a new thread rather than on an executor of the application, since such an executor may be the very
	 * thing that is stuck (its threads inside the container's retry) or already shut down by the context. A step
	 * that throws is logged at debug level, as a failed clean-up; one that does not end in time is abandoned with
	 * one warning.
	 * @param what what the step stops, for the log: "the lock's release subscriptions"
	 * @param step the step
	 * @return whether the step ended in time
	 */
	public static boolean run(String what, Step step) {
		CountDownLatch done = new CountDownLatch(1);
		Thread thread = new Thread(() -> {
			try {
				step.run();
			}
			catch (Exception ex) {
				logger.debug("Stopping " + what + " failed", ex);
			}
			finally {
				done.countDown();
			}
		}, "redis-kit-stop-" + threads.incrementAndGet());
		thread.setDaemon(true);
		thread.start();
		if (awaitLatch(done, TIMEOUT)) {
			return true;
		}
		abandoned(what, TIMEOUT, thread);
		return false;
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

	private static boolean awaitLatch(CountDownLatch latch, Duration bound) {
		long deadline = System.nanoTime() + bound.toNanos();
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return latch.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
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

	private static void abandoned(String what, Duration bound, Thread stuck) {
		logger.warn("Stopping " + what + " did not end within " + bound.toMillis() + " ms; abandoned it on thread '"
				+ stuck.getName() + "', which ends on its own or with the process");
		if (logger.isDebugEnabled()) {
			logger.debug("Where stopping " + what + " is stuck:\n" + Arrays.stream(stuck.getStackTrace())
				.map((frame) -> "\tat " + frame)
				.collect(Collectors.joining("\n")));
		}
	}

}
