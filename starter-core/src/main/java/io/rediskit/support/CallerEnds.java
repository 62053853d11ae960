package io.rediskit.support;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * How an asynchronous wait ends when its caller ends the stage it was given, written once for every wait that
 * blocks no thread (the lock family's, the latch's). Nothing in a wait can refuse a {@link CompletableFuture}'s
 * {@code cancel}, {@code complete}, {@code completeExceptionally} or the caller's own deadline ({@code orTimeout},
 * {@code completeOnTimeout}), so each of them ends the wait at once, as a cancel does, and is reported as the
 * caller's stage saw it. Internal to redis-kit's primitives.
 */
public final class CallerEnds {

	private CallerEnds() {
	}

	/**
	 * Ends a wait as soon as its caller ends the stage itself, whichever way: no attempt starts after it, its
	 * subscriptions and timers are released, and an attempt in flight ends it when it replies. The wait's own end
	 * completes the stage too and runs {@code end} as well: each wait passes its own point of no return (ended, or
	 * an attempt in flight that decides) before it completes the stage, so that {@code end} then finds nothing left
	 * to end, and it reports its own outcome only once the stage took it, else {@link #endedByCaller}.
	 * @param caller the caller's stage
	 * @param end ends the wait, reporting {@link #endedByCaller} unless the wait ended first
	 */
	public static void whenCallerEnds(CompletableFuture<?> caller, Runnable end) {
		caller.whenComplete((value, failure) -> end.run());
	}

	/**
	 * The outcome of a wait whose caller ended its stage before the wait completed it, as the caller sees it: a
	 * timeout for a stage ended with a {@link TimeoutException} (the caller's own deadline ran out, as
	 * {@code orTimeout} ends a stage), an interruption for any other end (a cancel, a value or another failure: the
	 * caller stopped waiting).
	 * @param <R> the area's outcome type
	 * @param caller the stage, completed
	 * @param timeout the area's outcome for a wait that ran out
	 * @param interrupted the area's outcome for a wait its caller stopped
	 * @return the outcome to report
	 */
	public static <R> R endedByCaller(CompletableFuture<?> caller, R timeout, R interrupted) {
		if (caller.isCompletedExceptionally() && !caller.isCancelled()) {
			Throwable failure = caller.handle((value, ex) -> ex).join();
			if (failure != null && Stages.unwrap(failure) instanceof TimeoutException) {
				return timeout;
			}
		}
		return interrupted;
	}

}
