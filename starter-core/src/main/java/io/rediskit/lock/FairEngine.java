package io.rediskit.lock;

import java.util.Optional;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.ReleaseSignals;

/**
 * The fair lock on one Redis deployment: granted in arrival order across every client. Waiters take a place in a
 * line kept in Redis ({@code fairlock_acquire.lua}), a free lock goes to the first in line only, and a release
 * wakes that waiter by its owner id on the lock's channel, wherever it waits. Each attempt renews the waiter's
 * place; a waiter that stops attempting (its process died or stopped) loses its place after the spec's waiter
 * timeout, so the line moves on within {@link WaiterLineSpec#deadWaiterDelayBound()}. Re-entry, a release that is
 * not the last and renewal are the lock's own scripts over the same hash layout.
 */
final class FairEngine extends WaiterLineEngine {

	final FairLockScripts scripts;

	private final LockScripts lockScripts;

	FairEngine(WaiterLineSpec spec, FairLockScripts scripts, LockScripts lockScripts, ReleaseSignals signals) {
		super(spec, signals);
		this.scripts = scripts;
		this.lockScripts = lockScripts;
	}

	@Override
	CompletionStage<Long> reenter(RedisLock lock, LockHold current) {
		return this.scripts.reenter(lock.keys(), current.owner, current.leaseMillis,
				lock.parts().holds().nextRequestId());
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

	/** The last hold frees the lock for the first in line and wakes it; an earlier one counts down. */
	@Override
	public CompletionStage<Long> release(LockHold hold) {
		RedisLock lock = hold.lock;
		if (hold.holdCount() != 1) {
			return this.lockScripts.release(lock.keys(), hold.owner, hold.leaseMillis,
					lock.parts().holds().nextRequestId());
		}
		return this.scripts.releaseLast(lock.keys(), hold.owner);
	}

	@Override
	CompletionStage<Boolean> extend(LockHold hold) {
		return this.lockScripts.renew(hold.lock.keys(), hold.owner, hold.leaseMillis);
	}

	@Override
	public boolean isLocked(RedisLock lock) {
		return this.lockScripts.isLocked(lock.keys());
	}

	@Override
	public CompletionStage<Boolean> isLockedAsync(RedisLock lock) {
		return this.lockScripts.isLockedAsync(lock.keys());
	}

	/** The fair lock's hash has the lock's shape: the lock's read. */
	@Override
	public CompletionStage<Optional<Holder>> holderAsync(RedisLock lock) {
		return this.lockScripts.holderAsync(lock.keys());
	}

	@Override
	public int holdCount(RedisLock lock, String owner) {
		return this.lockScripts.holdCount(lock.keys(), owner);
	}

}
