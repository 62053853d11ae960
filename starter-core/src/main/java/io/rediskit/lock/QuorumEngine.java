package io.rediskit.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.micrometer.observation.Observation;
import io.rediskit.lock.LockListener.RenewalResult;
import io.rediskit.support.Background;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

/**
 * The lock on a majority of independent Redis servers (the Redlock algorithm): every operation a round on all
 * nodes at once ({@link RedlockNodes}), each reply waited for at most the node timeout, a wait a
 * {@link RedlockAcquisition}. A hold counts while a majority confirmed it within its validity
 * ({@link RedlockSpec#validity}); a re-entry by the owning thread is counted by the client only and sends
 * nothing.
 */
final class QuorumEngine implements Engine {

	final RedlockSpec spec;

	final RedlockNodes nodes;

	/** The waiters of this registry per name: one sends rounds, the others wait their turn here. */
	final RoundLine line = new RoundLine();

	QuorumEngine(RedlockSpec spec, RedlockNodes nodes) {
		this.spec = spec;
		this.nodes = nodes;
	}

	@Override
	public @Nullable LockHold acquire(RedisLock lock, String owner, @Nullable Long leaseMillis, long waitNanos,
			boolean interruptible) throws InterruptedException {
		LockHold held = lock.parts().holds().get(lock, owner);
		if (held != null && !held.isLost()) {
			// A re-entry is a wait like any other, answered at once: observed, and counted as acquired.
			Observation wait = lock.startWait();
			held.reenteredLocally();
			lock.report(AcquireResult.ACQUIRED, System.nanoTime(), wait);
			return held;
		}
		return new RedlockAcquisition(lock, this, owner, leaseMillis, Duration.ofNanos(Math.max(waitNanos, 0)),
				waitNanos)
			.run(interruptible);
	}

	/** A re-entry counts down locally; the last hold is released on every node. */
	@Override
	public CompletionStage<Long> release(LockHold hold) {
		if (hold.holdCount() > 1) {
			return CompletableFuture.completedFuture((long) hold.holdCount() - 1);
		}
		return this.nodes.release(hold.lock.keys(), hold.owner).thenApply((tally) -> {
			if (tally.done() >= this.nodes.quorum()) {
				this.line.released(hold.lock.name());
				return 0L;
			}
			if (tally.refused() > this.nodes.size() - this.nodes.quorum()) {
				return -1L;
			}
			throw this.nodes.unavailable("release", tally);
		});
	}

	/** The script deletes only this owner's keys: the nodes it still holds are freed before their lease ends. */
	@Override
	public void releaseLost(LockHold hold) {
		this.nodes.releaseQuietly(hold.lock.keys(), hold.owner);
	}

	/** Rounds without a thread: the pauses between them run on the registry's scheduler. */
	@Override
	public CompletionStage<Lease> acquireAsync(RedisLock lock, String owner, @Nullable Long leaseMillis,
			Duration waitTime, long waitNanos, boolean skipIfHeld) {
		RedlockAcquisition acquisition = new RedlockAcquisition(lock, this, owner, leaseMillis, waitTime, waitNanos);
		acquisition.skipIfHeld(skipIfHeld);
		return acquisition.start();
	}

	/**
	 * A renewal counts when a majority extended the lease within the round's validity and before the hold's last
	 * validity ended; it is lost when so many nodes say the owner no longer holds the lock that no majority is
	 * left.
	 */
	@Override
	public CompletionStage<RenewalResult> renew(LockHold hold) {
		long started = System.nanoTime();
		return this.nodes.renew(hold.lock.keys(), hold.owner, hold.leaseMillis).thenApply((tally) -> {
			long now = System.nanoTime();
			Duration validity = this.spec.validity(Duration.ofMillis(hold.leaseMillis), Duration.ofNanos(now - started));
			int quorum = this.nodes.quorum();
			if (tally.done() >= quorum && !validity.isNegative() && !validity.isZero() && !hold.leaseElapsed(now)) {
				hold.extended(now + validity.toNanos());
				return RenewalResult.RENEWED;
			}
			if (tally.refused() > this.nodes.size() - quorum) {
				return RenewalResult.LOST;
			}
			throw this.nodes.unavailable("renewal of '" + hold.lock.name() + "'", tally);
		});
	}

	@Override
	public <T> T await(CompletionStage<T> stage, String operation, RedisLock lock) {
		return this.nodes.await(stage, operation + " of '" + lock.name() + "'");
	}

	@Override
	public boolean isLocked(RedisLock lock) {
		return Stages.uninterruptibly(() -> await(isLockedAsync(lock), "isLocked", lock));
	}

	@Override
	public CompletionStage<Boolean> isLockedAsync(RedisLock lock) {
		return this.nodes.isLocked(lock.keys());
	}

	@Override
	public CompletionStage<Optional<Holder>> holderAsync(RedisLock lock) {
		return this.nodes.holder(lock.keys());
	}

	/** As this client counts it: a Redlock re-entry is never sent to the nodes. */
	@Override
	public int holdCount(RedisLock lock, String owner) {
		LockHold hold = lock.parts().holds().get(lock, owner);
		return (hold != null && !hold.isLost()) ? hold.holdCount() : 0;
	}

	@Override
	public void requireLease(Duration leaseTime) {
		this.spec.requireLease(leaseTime);
	}

	@Override
	public Duration minimumLeaseTime() {
		return this.spec.nodeTimeout().multipliedBy(3);
	}

	@Override
	public void start(Background background) {
		this.nodes.setExecutor(background.executor());
	}

	@Override
	public void stop() {
		this.nodes.setExecutor(null);
	}

}
