package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.rediskit.lock.LockListener.RenewalResult;
import org.jspecify.annotations.Nullable;

/**
 * The lock on one Redis deployment (standalone, Sentinel or Cluster): one script call per acquisition and per
 * release ({@link LockScripts}), waiters woken by the lock's release channel ({@link ReleaseSignals}) and, among
 * the threads of one registry, handed the lock in arrival order by the release script. A blocking wait is an
 * {@link Acquisition}, one without a thread an {@link AsyncAcquisition}.
 */
final class SingleNodeEngine implements Engine {

	private static final Duration MIN_LEASE = Duration.ofMillis(1);

	final LockSpec spec;

	final LockScripts scripts;

	final ReleaseSignals signals;

	SingleNodeEngine(LockSpec spec, LockScripts scripts, ReleaseSignals signals) {
		this.spec = spec;
		this.scripts = scripts;
		this.signals = signals;
	}

	@Override
	public @Nullable LockHold acquire(RedisLock lock, String owner, @Nullable Long leaseMillis, long waitNanos,
			boolean interruptible) throws InterruptedException {
		return new Acquisition(lock, this, owner, leaseMillis, waitNanos, interruptible).run();
	}

	@Override
	public CompletionStage<Lease> acquireAsync(RedisLock lock, String owner, @Nullable Long leaseMillis,
			Duration waitTime, long waitNanos) {
		return new AsyncAcquisition(lock, this, owner, leaseMillis, waitTime, waitNanos).start();
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
		if (hold.holdCount != 1) {
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
	public void releaseLost(LockHold hold) {
		// The key is gone or someone else's: there is nothing of this owner's to free.
	}

	@Override
	public CompletionStage<RenewalResult> renew(LockHold hold) {
		long started = System.nanoTime();
		return this.scripts.renew(hold.lock.keys(), hold.owner, hold.leaseMillis).thenApply((renewed) -> {
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
		return this.scripts.isLocked(lock.keys());
	}

	@Override
	public CompletionStage<Boolean> isLockedAsync(RedisLock lock) {
		return this.scripts.isLockedAsync(lock.keys());
	}

	@Override
	public int holdCount(RedisLock lock, String owner) {
		return this.scripts.holdCount(lock.keys(), owner);
	}

	@Override
	public void requireLease(Duration leaseTime) {
		if (leaseTime.isNegative() || leaseTime.isZero() || leaseTime.toMillis() < 1) {
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
