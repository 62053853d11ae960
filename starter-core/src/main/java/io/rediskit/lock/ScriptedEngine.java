package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import io.rediskit.lock.LockListener.RenewalResult;
import io.rediskit.support.Background;
import io.rediskit.support.ReleaseSignals;

/**
 * What every engine of the lock family on one Redis deployment shares, written once: its release channel's
 * subscription ({@link ReleaseSignals}), started and stopped with the engine; a renewal that is one script call
 * and moves the hold's validity on from when it was sent; waits on the calling thread as the scripts' calls are
 * bounded (by the command timeout); leases of 1 ms and more. A subclass says how each operation calls its scripts.
 * Running a script, its {@code NOSCRIPT} recovery and the keys' hash slots are the scripts classes' (over
 * {@link io.rediskit.support.ScriptExecutor} and {@link io.rediskit.support.KeyNaming}), never an engine's.
 */
abstract class ScriptedEngine implements Engine {

	private static final Duration MIN_LEASE = Duration.ofMillis(1);

	final ReleaseSignals signals;

	ScriptedEngine(ReleaseSignals signals) {
		this.signals = signals;
	}

	/**
	 * Extends the hold's lease in Redis by {@link LockHold#leaseMillis}.
	 * @return whether the owner still held it
	 */
	abstract CompletionStage<Boolean> extend(LockHold hold);

	@Override
	public final CompletionStage<RenewalResult> renew(LockHold hold) {
		long started = System.nanoTime();
		return extend(hold).thenApply((renewed) -> {
			if (!renewed) {
				return RenewalResult.LOST;
			}
			hold.extended(started + TimeUnit.MILLISECONDS.toNanos(hold.leaseMillis));
			return RenewalResult.RENEWED;
		});
	}

	@Override
	public void releaseLost(LockHold hold) {
		// The lease ended or the key is someone else's: the scripts keep nothing of this owner's to free.
	}

	@Override
	public final <T> T await(CompletionStage<T> stage, String operation, RedisLock lock) {
		return LockScripts.await(stage);
	}

	@Override
	public void requireLease(Duration leaseTime) {
		if (leaseTime.isNegative() || leaseTime.toMillis() < 1) {
			throw new IllegalArgumentException("leaseTime must be at least 1ms, was " + leaseTime);
		}
	}

	@Override
	public final Duration minimumLeaseTime() {
		return MIN_LEASE;
	}

	@Override
	public void start(Background background) {
		this.signals.start(background);
	}

	@Override
	public void stop() {
		this.signals.stop();
	}

}
