package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.ReleaseSignals;
import org.jspecify.annotations.Nullable;

/**
 * What the members whose waiters keep a place in Redis share ({@link FairEngine}, {@link ReadWriteEngine}): every
 * acquisition, blocking or not, is one {@link MemberWait} over the member's {@link MemberWait.Steps}, a re-entry
 * is one count call ({@link MemberWait#reenter}), and waiters sleep at most the spec's
 * {@link WaiterLineSpec#sleepBetweenAttempts()}, which keeps their place alive.
 */
abstract class WaiterLineEngine extends ScriptedEngine implements MemberWait.Steps {

	final WaiterLineSpec spec;

	WaiterLineEngine(WaiterLineSpec spec, ReleaseSignals signals) {
		super(signals);
		this.spec = spec;
	}

	/**
	 * Counts the owner's hold once more in Redis.
	 * @return the holds now, or {@code -1} when the owner no longer holds it
	 */
	abstract CompletionStage<Long> reenter(RedisLock lock, LockHold current);

	/**
	 * Refuses a first hold the owner must not wait for; nothing by default.
	 * @throws IllegalStateException naming the lock when the owner must not wait
	 */
	void requireMayWait(RedisLock lock, String owner) {
	}

	@Override
	public final @Nullable LockHold acquire(RedisLock lock, String owner, @Nullable Long leaseMillis, long waitNanos,
			boolean interruptible) throws InterruptedException {
		LockHold current = lock.parts().holds().get(lock, owner);
		if (current != null && !current.isLost()) {
			return MemberWait.reenter(current, () -> reenter(lock, current));
		}
		requireMayWait(lock, owner);
		return new MemberWait(lock, this, owner, leaseMillis, Duration.ofNanos(Math.max(waitNanos, 0)), waitNanos)
			.await(interruptible);
	}

	@Override
	public final CompletionStage<Lease> acquireAsync(RedisLock lock, String owner, @Nullable Long leaseMillis,
			Duration waitTime, long waitNanos, boolean skipIfHeld) {
		// A lease's owner is new: it holds nothing to re-enter, and nothing that keeps it from waiting.
		MemberWait wait = new MemberWait(lock, this, owner, leaseMillis, waitTime, waitNanos);
		wait.skipIfHeld(skipIfHeld);
		return wait.startAsync();
	}

	@Override
	public final long maxSleepNanos() {
		return this.spec.sleepBetweenAttempts().toNanos();
	}

	@Override
	public final ReleaseSignals signals() {
		return this.signals;
	}

}
