package io.rediskit.latch;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.micrometer.observation.Observation;
import io.rediskit.support.CallerEnds;
import io.rediskit.support.Observations;
import io.rediskit.support.PollingWait;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.ReleaseSignals;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

/**
 * A count-down latch across instances, from {@link LatchRegistry#getCountDownLatch(String)}: one instance sets a
 * count ({@link #trySetCount(long)}), any instance counts it down, and waiters on any instance pass once it
 * reaches zero, never before.
 * <p>
 * <b>States.</b> A latch is <em>not set</em> (no key), <em>counting</em> (count above zero) or <em>open</em>
 * (zero). Waiters pass only an open latch: a wait on a latch that is not set waits for one to be set and reach
 * zero, so a waiter that starts before the count is set is not released early. Counting down a latch that is not
 * set does nothing and returns {@code -1}; counting down an open one does nothing and returns {@code 0}.
 * <p>
 * <b>Expiry.</b> An open latch stays readable as open for the registry's {@code openFor}, so that late waiters
 * pass at once, then its key expires and it can be set again. A counting latch that nobody sets or counts down
 * for {@code abandonedAfter} is abandoned: its key expires, it reads as not set, and its waiters are <em>not</em>
 * released (they wait until their timeout): an abandoned count never opens a latch.
 * <p>
 * <b>Waking.</b> The count-down that reaches zero publishes on the latch's channel; each instance's waiters wake
 * one after the other, and any waiter also reads the count after the registry's {@code maxPollInterval}, so a lost
 * message costs latency, never a release. A count-down whose reply was lost and that the driver sends again counts
 * once (each carries an id the script remembers until the latch is set again).
 * <p>
 * <b>Limits.</b> One deployment; a failover that loses the latch's key makes it read as not set.
 */
public final class RedisCountDownLatch {

	private final String name;

	private final LatchScripts.Keys keys;

	private final LatchRegistry registry;

	RedisCountDownLatch(String name, LatchScripts.Keys keys, LatchRegistry registry) {
		this.name = name;
		this.keys = keys;
		this.registry = registry;
	}

	/** @return the latch name */
	public String name() {
		return this.name;
	}

	/**
	 * Sets the count, unless the latch is counting already (an open latch, or one not set, is set again).
	 * @param count the count, at least 1
	 * @return whether the count was set
	 */
	public boolean trySetCount(long count) {
		return Stages.join(trySetCountAsync(count));
	}

	/**
	 * {@link #trySetCount(long)} without blocking.
	 * @param count the count, at least 1
	 * @return whether the count was set, completed on the driver's thread
	 */
	public CompletionStage<Boolean> trySetCountAsync(long count) {
		if (count < 1) {
			throw new IllegalArgumentException("count must be at least 1, was " + count);
		}
		return this.registry.scripts().setCount(this.keys, count);
	}

	/**
	 * Counts down by one; the call that reaches zero opens the latch and wakes its waiters.
	 * @return the count after this call: {@code 0} when the latch is open, {@code -1} when it is not set
	 */
	public long countDown() {
		return Stages.join(countDownAsync());
	}

	/** @return {@link #countDown()} without blocking, completed on the driver's thread */
	public CompletionStage<Long> countDownAsync() {
		return this.registry.scripts().countDown(this.keys, this.registry.nextRequestId()).thenApply((remaining) -> {
			if (remaining >= 0) {
				this.registry.listeners().notify((listener) -> listener.onCountDown(this.name, remaining));
			}
			return remaining;
		});
	}

	/** @return the count: {@code 0} when the latch is open, {@code -1} when it is not set */
	public long count() {
		return Stages.join(this.registry.scripts().count(this.keys));
	}

	/**
	 * Waits until the latch is open.
	 * @param timeout how long to wait; zero or negative to read the count once
	 * @return whether the latch is open; {@code false} when the timeout ran out first
	 * @throws InterruptedException if interrupted while waiting
	 * @throws org.springframework.dao.DataAccessException if Redis failed to answer
	 */
	public boolean await(Duration timeout) throws InterruptedException {
		long timeoutNanos = nanos(timeout);
		long started = System.nanoTime();
		this.registry.ensureRunning();
		Observation observation = this.registry.observations().start(RedisKitObservation.LATCH_AWAIT, this.name, null);
		ReleaseSignals signals = this.registry.signals();
		ReleaseSignals.Waiter waiter = null;
		try {
			while (true) {
				long count;
				try {
					count = Stages.uninterruptibly(() -> Stages.join(this.registry.scripts().count(this.keys)));
				}
				catch (RuntimeException ex) {
					report(AwaitResult.ERROR, observation);
					throw ex;
				}
				if (count == 0) {
					if (waiter != null) {
						// The message that opened the latch woke one waiter of this instance: pass it on to the next.
						waiter.signal();
					}
					report(AwaitResult.OPENED, observation);
					return true;
				}
				long left = started + timeoutNanos - System.nanoTime();
				if (left <= 0) {
					report(AwaitResult.TIMEOUT, observation);
					return false;
				}
				long sleep = Math.min(left, this.registry.spec().maxPollInterval().toNanos());
				boolean interrupted;
				if (waiter == null) {
					waiter = signals.join(this.keys.opened, this.name, 0);
					interrupted = waiter.awaitSubscription(sleep);
				}
				else {
					interrupted = waiter.park(sleep);
				}
				if (interrupted) {
					report(AwaitResult.INTERRUPTED, observation);
					throw new InterruptedException("Waiting for latch '" + this.name + "'");
				}
			}
		}
		finally {
			if (waiter != null) {
				signals.leave(waiter);
			}
		}
	}

	/**
	 * Waits until the latch is open without blocking the calling thread.
	 * @param timeout how long to wait; zero or negative to read the count once
	 * @return whether the latch opened before the timeout, completed on the driver's or the scheduler's thread;
	 * exceptionally when Redis failed or the registry stopped. Ending it yourself, whichever way (a cancel,
	 * {@code complete}, {@code completeExceptionally}, your own deadline through {@code orTimeout}), ends the wait at
	 * once: it leaves the latch's channel and its timer is cancelled. The wait's observation reports that end as
	 * the stage saw it: {@code timeout} for a stage ended with a {@link java.util.concurrent.TimeoutException}, else
	 * {@code interrupted}.
	 */
	public CompletionStage<Boolean> awaitAsync(Duration timeout) {
		long timeoutNanos = nanos(timeout);
		try {
			this.registry.ensureRunning();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return new AsyncWait(timeoutNanos).start();
	}

	@Override
	public String toString() {
		return "RedisCountDownLatch[" + this.name + "]";
	}

	/** Ends a wait's observation with its outcome, which its meter ({@code rediskit.lock.latch.await}) comes from. */
	private static void report(AwaitResult result, Observation observation) {
		Observations.stop(observation, result.name().toLowerCase(Locale.ROOT));
	}

	private static long nanos(Duration timeout) {
		Objects.requireNonNull(timeout, "timeout");
		if (timeout.isNegative()) {
			return 0;
		}
		try {
			return timeout.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE / 2;
		}
	}

	/**
	 * One wait without a thread: a read of the count, then a wake-up by the channel or a timer (the poll interval,
	 * the timeout), then another read; one read in flight at a time ({@link PollingWait}).
	 * <p>
	 * Whoever ends the wait first (an answer, the registry stopping, the caller ending its stage:
	 * {@link CallerEnds#whenCallerEnds}) finishes it: the timer cancelled, the channel left, no read started after
	 * it, and a read in flight whose answer comes later changes nothing. The wait's own end is reported only once the
	 * caller's stage took it: a caller's end that came first, even between the two, is reported as the caller saw it
	 * ({@link CallerEnds#endedByCaller}), as the lock family's asynchronous waits report it.
	 */
	private final class AsyncWait {

		private final CompletableFuture<Boolean> result = new CompletableFuture<>();

		private final long started = System.nanoTime();

		private final Observation observation;

		private final long timeoutNanos;

		private final Runnable stopHook = this::stopped;

		private final PollingWait wait;

		AsyncWait(long timeoutNanos) {
			this.timeoutNanos = timeoutNanos;
			LatchRegistry registry = RedisCountDownLatch.this.registry;
			this.observation = registry.observations()
				.start(RedisKitObservation.LATCH_AWAIT, RedisCountDownLatch.this.name, null);
			this.wait = new PollingWait(registry.signals(), RedisCountDownLatch.this.keys.opened,
					RedisCountDownLatch.this.name, 0, registry::schedule, this::read);
		}

		CompletableFuture<Boolean> start() {
			RedisCountDownLatch.this.registry.onStop(this.stopHook);
			// Every end of the wait's own finishes it before it completes the stage: then this finds it finished.
			CallerEnds.whenCallerEnds(this.result, () -> {
				if (finish(false)) {
					report(endedByCaller(), this.observation);
				}
			});
			this.wait.start();
			return this.result;
		}

		private void read() {
			try {
				RedisCountDownLatch.this.registry.scripts().count(RedisCountDownLatch.this.keys).whenComplete(this::answered);
			}
			catch (RuntimeException ex) {
				answered(null, ex);
			}
		}

		private void answered(@Nullable Long count, @Nullable Throwable failure) {
			if (failure != null || count == null) {
				if (finish(false)) {
					fail(AwaitResult.ERROR, (failure != null) ? Stages.unwrap(failure)
							: new IllegalStateException("No reply to a read of latch '" + RedisCountDownLatch.this.name + "'"));
				}
				return;
			}
			if (count == 0) {
				if (finish(true)) {
					end(AwaitResult.OPENED, true);
				}
				return;
			}
			long left = this.started + this.timeoutNanos - System.nanoTime();
			if (left <= 0) {
				if (finish(false)) {
					end(AwaitResult.TIMEOUT, false);
				}
				return;
			}
			try {
				this.wait.again(Math.min(left, RedisCountDownLatch.this.registry.spec().maxPollInterval().toNanos()));
			}
			catch (IllegalStateException ex) {
				// The registry stopped between two reads: the wait is over (PollingWait.again), and reported here.
				RedisCountDownLatch.this.registry.removeOnStop(this.stopHook);
				fail(AwaitResult.INTERRUPTED, ex);
			}
		}

		private void stopped() {
			if (finish(false)) {
				fail(AwaitResult.INTERRUPTED, new IllegalStateException(
						"The latch registry stopped while waiting for latch '" + RedisCountDownLatch.this.name + "'"));
			}
		}

		/** Completes the caller's stage with the wait's own end, and reports what the stage took. */
		private void end(AwaitResult outcome, boolean open) {
			report(this.result.complete(open) ? outcome : endedByCaller(), this.observation);
		}

		/** Fails the caller's stage with the wait's own end, and reports what the stage took. */
		private void fail(AwaitResult outcome, Throwable failure) {
			report(this.result.completeExceptionally(failure) ? outcome : endedByCaller(), this.observation);
		}

		/** @return the outcome of a stage its caller ended, as the caller saw it */
		private AwaitResult endedByCaller() {
			return CallerEnds.endedByCaller(this.result, AwaitResult.TIMEOUT, AwaitResult.INTERRUPTED);
		}

		/**
		 * @param opened whether the latch was found open: the wake-up is passed on to the instance's next waiter
		 * @return whether this call ended the wait
		 */
		private boolean finish(boolean opened) {
			if (!this.wait.finish(opened)) {
				return false;
			}
			RedisCountDownLatch.this.registry.removeOnStop(this.stopHook);
			return true;
		}

	}

}
