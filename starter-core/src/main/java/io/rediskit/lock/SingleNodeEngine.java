package io.rediskit.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.ReleaseSignals;
import org.jspecify.annotations.Nullable;

/**
 * The lock on one Redis deployment (standalone, Sentinel or Cluster): one script call per acquisition and per
 * release ({@link LockScripts}), waiters woken by the lock's release channel ({@link ReleaseSignals}) and, among
 * the threads of one registry, handed the lock in arrival order by the release script. A blocking wait is an
 * {@link Acquisition}, one without a thread an {@link AsyncAcquisition}.
 */
final class SingleNodeEngine extends ScriptedEngine {

	final LockSpec spec;

	final LockScripts scripts;

	SingleNodeEngine(LockSpec spec, LockScripts scripts, ReleaseSignals signals) {
		super(signals);
		this.spec = spec;
		this.scripts = scripts;
	}

	@Override
	public @Nullable LockHold acquire(RedisLock lock, String owner, @Nullable Long leaseMillis, long waitNanos,
			boolean interruptible) throws InterruptedException {
		return new Acquisition(lock, this, owner, leaseMillis, waitNanos, interruptible).run();
	}

	@Override
	public CompletionStage<Lease> acquireAsync(RedisLock lock, String owner, @Nullable Long leaseMillis,
			Duration waitTime, long waitNanos, boolean skipIfHeld) {
		AsyncAcquisition acquisition = new AsyncAcquisition(lock, this, owner, leaseMillis, waitTime, waitNanos);
		acquisition.skipIfHeld(skipIfHeld);
		return acquisition.startAsync();
	}

	/**
	 * The client's last hold goes straight to the longest-waiting local thread when there is one (no pub/sub, no
	 * race); otherwise the lock is freed and its channel told. A claimed waiter is resolved here: handed the lock,
	 * or told to try again itself (should a hand-off whose reply was lost have happened after all, its attempt
	 * adopts the lock).
	 */
	@Override
	public CompletionStage<Long> release(LockHold hold) {
		RedisLock lock = hold.lock;
		if (hold.holdCount() != 1) {
			return this.scripts.release(lock.keys(), hold.owner, hold.leaseMillis, lock.parts().holds().nextRequestId());
		}
		ReleaseSignals.Waiter next = this.signals.claimNext(lock.keys().released);
		if (next == null) {
			return this.scripts.releaseLast(lock.keys(), hold.owner);
		}
		CompletionStage<Long> call;
		try {
			call = this.scripts.handOff(lock.keys(), hold.owner, next.owner, next.leaseMillis,
					lock.parts().holds().nextRequestId());
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
				throw (failure instanceof RuntimeException runtime) ? runtime
						: new CompletionException(failure);
			}
			return (token != null && token > 0) ? 0L : -1L;
		});
	}

	@Override
	CompletionStage<Boolean> extend(LockHold hold) {
		return this.scripts.renew(hold.lock.keys(), hold.owner, hold.leaseMillis);
	}

	@Override
	public boolean isLocked(RedisLock lock) {
		return this.scripts.isLocked(lock.keys());
	}

	@Override
	public CompletionStage<Boolean> isLockedAsync(RedisLock lock) {
		return this.scripts.isLockedAsync(lock.keys());
	}

	@Override
	public CompletionStage<Optional<Holder>> holderAsync(RedisLock lock) {
		return this.scripts.holderAsync(lock.keys());
	}

	@Override
	public int holdCount(RedisLock lock, String owner) {
		return this.scripts.holdCount(lock.keys(), owner);
	}

}
