package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.rediskit.lock.LockListener.RenewalResult;
import org.jspecify.annotations.Nullable;

/**
 * The fair lock on one Redis deployment: granted in arrival order across every client. Waiters take a place in a
 * line kept in Redis ({@code fairlock_acquire.lua}), a free lock goes to the first in line only, and a release
 * wakes that waiter by its owner id on the lock's channel, wherever it waits. Each attempt renews the waiter's
 * place; a waiter that stops attempting (its process died or stopped) loses its place after the spec's waiter
 * timeout, so the line moves on within {@link WaiterLineSpec#deadWaiterDelayBound()}. Re-entry, a release that is
 * not the last and renewal are the lock's own scripts over the same hash layout.
 */
final class FairEngine implements Engine, MemberWait.Steps {

	private static final Duration MIN_LEASE = Duration.ofMillis(1);

	final WaiterLineSpec spec;

	final FairLockScripts scripts;

	private final LockScripts lockScripts;

	private final ReleaseSignals signals;

	FairEngine(WaiterLineSpec spec, FairLockScripts scripts, LockScripts lockScripts, ReleaseSignals signals) {
		this.spec = spec;
		this.scripts = scripts;
		this.lockScripts = lockScripts;
		this.signals = signals;
	}

	@Override
	public @Nullable LockHold acquire(RedisLock lock, String owner, @Nullable Long leaseMillis, long waitNanos,
			boolean interruptible) throws InterruptedException {
		LockHold current = lock.parts().holds().get(lock, owner);
		if (current != null && !current.lost) {
			return MemberWait.reenter(current, () -> this.scripts.reenter(lock.keys(), owner, current.leaseMillis,
					lock.parts().holds().nextRequestId()));
		}
		return new MemberWait(lock, this, owner, leaseMillis, Duration.ofNanos(Math.max(waitNanos, 0)), waitNanos)
			.await(interruptible);
	}

	@Override
	public CompletionStage<Lease> acquireAsync(RedisLock lock, String owner, @Nullable Long leaseMillis,
			Duration waitTime, long waitNanos) {
		return new MemberWait(lock, this, owner, leaseMillis, waitTime, waitNanos).startAsync();
	}

	@Override
	public CompletionStage<LockScripts.Attempt> attempt(RedisLock lock, String owner, long leaseMillis,
			String requestId) {
		return this.scripts.acquire(lock.keys(), owner, leaseMillis, requestId, this.spec.waiterTimeout().toMillis());
	}

	@Override
	public CompletionStage<?> leave(RedisLock lock, String owner) {
		return this.scripts.leave(lock.keys(), owner);
	}

	@Override
	public long maxSleepNanos() {
		return this.spec.sleepBetweenAttempts().toNanos();
	}

	@Override
	public ReleaseSignals signals() {
		return this.signals;
	}

	/** The last hold frees the lock for the first in line and wakes it; an earlier one counts down. */
	@Override
	public CompletionStage<Long> release(LockHold hold) {
		RedisLock lock = hold.lock;
		if (hold.holdCount != 1) {
			return this.lockScripts.release(lock.keys(), hold.owner, hold.leaseMillis,
					lock.parts().holds().nextRequestId());
		}
		return this.scripts.releaseLast(lock.keys(), hold.owner);
	}

	@Override
	public void releaseLost(LockHold hold) {
		// The key is gone or someone else's: there is nothing of this owner's to free.
	}

	@Override
	public CompletionStage<RenewalResult> renew(LockHold hold) {
		long started = System.nanoTime();
		return this.lockScripts.renew(hold.lock.keys(), hold.owner, hold.leaseMillis).thenApply((renewed) -> {
			if (!renewed) {
				return RenewalResult.LOST;
			}
			hold.validUntilNanos = started + TimeUnit.MILLISECONDS.toNanos(hold.leaseMillis);
			return RenewalResult.RENEWED;
		});
	}

	@Override
	public <T> T await(CompletionStage<T> stage, String operation, RedisLock lock) {
		return LockScripts.await(stage);
	}

	@Override
	public boolean isLocked(RedisLock lock) {
		return this.lockScripts.isLocked(lock.keys());
	}

	@Override
	public CompletionStage<Boolean> isLockedAsync(RedisLock lock) {
		return this.lockScripts.isLockedAsync(lock.keys());
	}

	@Override
	public int holdCount(RedisLock lock, String owner) {
		return this.lockScripts.holdCount(lock.keys(), owner);
	}

	@Override
	public void requireLease(Duration leaseTime) {
		if (leaseTime.isNegative() || leaseTime.toMillis() < 1) {
			throw new IllegalArgumentException("leaseTime must be at least 1ms, was " + leaseTime);
		}
	}

	@Override
	public Duration minimumLeaseTime() {
		return MIN_LEASE;
	}

	@Override
	public void start(Executor blocking) {
		this.signals.start(blocking);
	}

	@Override
	public void stop() {
		this.signals.stop();
	}

}
