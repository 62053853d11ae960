package io.rediskit.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.ReleaseSignals;
import org.jspecify.annotations.Nullable;

/**
 * The semaphore's side of the lock family's seam: what the shell ({@link Release}, {@link LockWatchdog},
 * {@link LockBackground}) asks of a hold on permits, on one Redis deployment. Releasing and renewing run the
 * semaphore's scripts ({@link SemaphoreScripts}); waiters are woken by the semaphore's release channel through
 * the registry's own {@link ReleaseSignals}.
 * <p>
 * Acquisitions take a number of permits, which a lock's {@link RedisLock} calls cannot say: they are
 * {@link SemaphoreAcquisition}s started by {@link RedisSemaphore}. The {@link RedisLock} a semaphore's holds are
 * recorded under is the shell's identity for them and is never handed out, so the lock-shaped calls below are
 * never made.
 */
final class SemaphoreEngine extends ScriptedEngine {

	final LockSpec spec;

	final SemaphoreScripts scripts;

	SemaphoreEngine(LockSpec spec, SemaphoreScripts scripts, ReleaseSignals signals) {
		super(signals);
		this.spec = spec;
		this.scripts = scripts;
	}

	@Override
	public @Nullable LockHold acquire(RedisLock lock, String owner, @Nullable Long leaseMillis, long waitNanos,
			boolean interruptible) {
		throw new UnsupportedOperationException("Semaphore permits are acquired through RedisSemaphore");
	}

	@Override
	public CompletionStage<Lease> acquireAsync(RedisLock lock, String owner, @Nullable Long leaseMillis,
			Duration waitTime, long waitNanos, boolean skipIfHeld) {
		return CompletableFuture.failedFuture(
				new UnsupportedOperationException("Semaphore permits are acquired through RedisSemaphore"));
	}

	/**
	 * Gives all the hold's permits back: a hold is one acquisition, released once. When threads of this registry
	 * wait for the semaphore, the longest-waiting of them is handed the freed permits in the same call, as the
	 * lock hands itself over (no release message, no attempt of its own, no race with other clients), at most
	 * {@value ReleaseSignals#MAX_LOCAL_HANDOFFS} times in a row so that waiters elsewhere get their turn. A claimed
	 * waiter is resolved here: handed the permits, or told to try again itself (should a hand-off whose reply was
	 * lost have happened after all, its attempt finds the permits its own).
	 */
	@Override
	public CompletionStage<Long> release(LockHold hold) {
		LockScripts.Keys keys = hold.lock.keys();
		ReleaseSignals.Waiter next = this.signals.claimNext(keys.released);
		if (next == null) {
			return this.scripts.releaseHold(keys, hold.owner);
		}
		CompletionStage<Long> call;
		try {
			call = this.scripts.handOff(keys, hold.owner, next.owner, next.permits, next.leaseMillis);
		}
		catch (RuntimeException ex) {
			next.retry();
			throw ex;
		}
		return call.handle((token, failure) -> {
			if (failure != null || token == null || token <= 0) {
				next.retry();
			}
			else {
				next.handOver(token);
			}
			if (failure != null) {
				throw (failure instanceof RuntimeException runtime) ? runtime : new CompletionException(failure);
			}
			return (token != null && token >= 0) ? 0L : -1L;
		});
	}

	@Override
	CompletionStage<Boolean> extend(LockHold hold) {
		return this.scripts.renew(hold.lock.keys(), hold.owner, hold.leaseMillis);
	}

	@Override
	public boolean isLocked(RedisLock lock) {
		return LockScripts.await(isLockedAsync(lock));
	}

	@Override
	public CompletionStage<Boolean> isLockedAsync(RedisLock lock) {
		return this.scripts.permits(lock.keys(), 0).thenApply((permits) -> permits.held() > 0);
	}

	/** Unsupported: permits have many holders at once. */
	@Override
	public CompletionStage<Optional<Holder>> holderAsync(RedisLock lock) {
		throw new UnsupportedOperationException("A semaphore's permits have many holders");
	}

	@Override
	public int holdCount(RedisLock lock, String owner) {
		// Permits are held by leases, never by threads.
		return 0;
	}

	@Override
	public void requireLease(Duration leaseTime) {
		super.requireLease(leaseTime);
		if (leaseTime.compareTo(LockSpec.MAX_DURATION) > 0) {
			throw new IllegalArgumentException(
					"leaseTime must be at most " + LockSpec.MAX_DURATION.toDays() + " days, was " + leaseTime);
		}
	}

}
