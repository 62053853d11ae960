package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.ReleaseSignals;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a member of the lock family whose every attempt is one script ({@link FairEngine},
 * {@link ReadWriteEngine}), for a thread or a lease alike: a {@link SignalledWait} over the member's
 * {@link Steps}, sleeping at most the member's longest sleep. No thread waits inside it: a blocking caller awaits
 * its stage ({@link #await(boolean)}), so the sync and async forms are one implementation; only the blocking
 * caller's first attempt is sent and answered on its own thread ({@link SignalledWait#startBlocking()}).
 * <p>
 * Each attempt also renews what the member keeps for a waiter in Redis (a fair lock's place in line, a waiting
 * writer's place), which is why the longest sleep is the member's, shorter than that place lasts. A wait that
 * ends without the lock (time out, cancelled, registry stopped, failed) tells the member to {@link
 * Steps#leave leave}: the place goes, and a hold an attempt took after a cancellation or with its reply lost is
 * given back. A hold is never reported after a cancellation.
 */
final class MemberWait extends SignalledWait {

	/** What a member's engine does for a wait. */
	interface Steps {

		/**
		 * One attempt at a first hold; renews the owner's place where the member keeps one.
		 * @return acquired with the fencing token, or not with the ms until the holder's lease ends ({@code -1}
		 * when that does not tell when to try again)
		 */
		CompletionStage<LockScripts.Attempt> attempt(RedisLock lock, String owner, long leaseMillis,
				String requestId);

		/** The owner waits no more and holds no first hold: its place goes, a hold an attempt took is freed. */
		CompletionStage<?> leave(RedisLock lock, String owner);

		/** @return the longest sleep between two attempts */
		long maxSleepNanos();

		/** @return the local waiters and the lock channels' subscription */
		ReleaseSignals signals();

	}

	private final Steps steps;

	MemberWait(RedisLock lock, Steps steps, String owner, @Nullable Long leaseMillis, Duration waitTime,
			long waitNanos) {
		super(lock, owner, leaseMillis, waitTime, waitNanos);
		this.steps = steps;
	}

	@Override
	CompletionStage<LockScripts.Attempt> attempt(String requestId) {
		return this.steps.attempt(this.lock, this.owner, this.leaseMillis, requestId);
	}

	/** Leaves whether or not an attempt took the lock: the member's leave frees such a hold too. */
	@Override
	CompletionStage<?> giveBack(@Nullable String requestId) {
		return this.steps.leave(this.lock, this.owner);
	}

	@Override
	long maxSleepNanos() {
		return this.steps.maxSleepNanos();
	}

	@Override
	ReleaseSignals signals() {
		return this.steps.signals();
	}

	/**
	 * Waits on the calling thread.
	 * @param interruptible whether an interrupt ends the wait, else it is remembered and restored
	 * @return the hold, or {@code null} when the wait ran out
	 * @throws InterruptedException if interruptible and interrupted; nothing is held then
	 */
	@Nullable LockHold await(boolean interruptible) throws InterruptedException {
		if (interruptible && Thread.interrupted()) {
			report(AcquireResult.INTERRUPTED);
			throw new InterruptedException("Interrupted before acquiring lock '" + this.lock.name() + "'");
		}
		boolean interrupted = !interruptible && Thread.interrupted();
		CompletableFuture<@Nullable LockHold> outcome = startBlocking();
		try {
			while (true) {
				try {
					return outcome.get();
				}
				catch (InterruptedException ex) {
					if (!interruptible) {
						interrupted = true;
						continue;
					}
					cancel();
					// Granted before the cancellation took effect: the caller holds it, with the interrupt pending.
					LockHold late = settled(outcome);
					if (late != null) {
						interrupted = true;
						return late;
					}
					throw ex;
				}
				catch (ExecutionException ex) {
					throw rethrowable(ex.getCause());
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
	 * A re-entry of a hold the owner has, on the calling thread: the member's call sets the stored hold count one
	 * higher. A hold the member no longer has was lost.
	 * @param call the member's count call: the holds now, or {@code -1} when the owner no longer holds it
	 * @return the hold, counted once more
	 * @throws LockLeaseLostException when the hold was lost
	 */
	static LockHold reenter(LockHold current, Supplier<CompletionStage<Long>> call) {
		RedisLock lock = current.lock;
		long started = System.nanoTime();
		Observation wait = lock.startWait();
		long count;
		try {
			count = Stages.uninterruptibly(() -> LockScripts.await(call.get()));
		}
		catch (RuntimeException ex) {
			if (RedisFailures.isUnavailable(ex)) {
				lock.parts().outages().warn(ex);
			}
			lock.report(AcquireResult.ERROR, started, wait);
			throw ex;
		}
		if (count < 1) {
			lock.parts().holds().markLost(current);
			lock.report(AcquireResult.ERROR, started, wait);
			throw new LockLeaseLostException(lock.name(), current.fencingToken);
		}
		LockHold hold = lock.parts().holds().acquired(lock, current.owner, current.fencingToken,
				Math.max(2, (int) count), current.leaseMillis, current.watchdog);
		lock.report(AcquireResult.ACQUIRED, started, wait);
		return hold;
	}

	private static @Nullable LockHold settled(CompletableFuture<@Nullable LockHold> outcome) {
		while (true) {
			try {
				return outcome.get();
			}
			catch (InterruptedException ex) {
				// Only an attempt in flight is left: its reply ends the wait.
			}
			catch (ExecutionException ex) {
				return null;
			}
		}
	}

	private static RuntimeException rethrowable(@Nullable Throwable cause) {
		if (cause instanceof RuntimeException runtime) {
			return runtime;
		}
		return new CompletionException(cause);
	}

}
