package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.rediskit.lock.LockListener.RenewalResult;
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
final class SemaphoreEngine implements Engine {

	private static final Duration MIN_LEASE = Duration.ofMillis(1);

	final LockSpec spec;

	final SemaphoreScripts scripts;

	final ReleaseSignals signals;

	SemaphoreEngine(LockSpec spec, SemaphoreScripts scripts, ReleaseSignals signals) {
		this.spec = spec;
		this.scripts = scripts;
		this.signals = signals;
	}

	@Override
	public @Nullable LockHold acquire(RedisLock lock, String owner, @Nullable Long leaseMillis, long waitNanos,
			boolean interruptible) {
		throw new UnsupportedOperationException("Semaphore permits are acquired through RedisSemaphore");
	}

	@Override
	public CompletionStage<Lease> acquireAsync(RedisLock lock, String owner, @Nullable Long leaseMillis,
			Duration waitTime, long waitNanos) {
		return CompletableFuture.failedFuture(
				new UnsupportedOperationException("Semaphore permits are acquired through RedisSemaphore"));
	}

	/** Gives all the hold's permits back: a hold is one acquisition, released once. */
	@Override
	public CompletionStage<Long> release(LockHold hold) {
		return this.scripts.release(hold.lock.keys(), hold.owner).thenApply((freed) -> (freed >= 0) ? 0L : -1L);
	}

	@Override
	public void releaseLost(LockHold hold) {
		// The lease ended: its permits were free for others already, and nothing of this owner's is left.
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
		return LockScripts.await(isLockedAsync(lock));
	}

	@Override
	public CompletionStage<Boolean> isLockedAsync(RedisLock lock) {
		return this.scripts.permits(lock.keys(), 0).thenApply((permits) -> permits.held() > 0);
	}

	@Override
	public int holdCount(RedisLock lock, String owner) {
		// Permits are held by leases, never by threads.
		return 0;
	}

	@Override
	public void requireLease(Duration leaseTime) {
		if (leaseTime.isNegative() || leaseTime.isZero() || leaseTime.toMillis() < 1) {
			throw new IllegalArgumentException("leaseTime must be at least 1ms, was " + leaseTime);
		}
		if (leaseTime.compareTo(LockSpec.MAX_DURATION) > 0) {
			throw new IllegalArgumentException(
					"leaseTime must be at most " + LockSpec.MAX_DURATION.toDays() + " days, was " + leaseTime);
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
