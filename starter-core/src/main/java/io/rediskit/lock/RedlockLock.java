package io.rediskit.lock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

import org.jspecify.annotations.Nullable;

/**
 * A lock over several independent Redis servers (the Redlock algorithm), from
 * {@link RedlockRegistry#getLock(String)}, with the API of the single-node {@link RedisLock} ({@link LeaseLock},
 * {@link RedisLock.Lease}).
 * <p>
 * <b>Semantics.</b> An attempt runs the single-node lock's acquire script on every node at once, waiting for
 * each reply at most the node timeout; it succeeds when a majority ({@code N/2+1}) took the lock and the time the
 * round took leaves a positive validity, {@code lease - elapsed - clock drift} ({@link RedlockSpec#validity}).
 * A failed attempt releases on every node, including those that did not answer, and the next one comes after a
 * random delay. Releasing runs the release script on every node. A key is never deleted by anyone but its owner.
 * Thread holds are reentrant; a re-entry is counted locally and sends nothing.
 * <p>
 * <b>Survives</b> the loss, pause or partition of a minority of nodes: with 5 nodes, 2 may be down and locks
 * still work; with 3 down every attempt fails after one node timeout with Spring's
 * {@code RedisConnectionFailureException} (an outage).
 * <p>
 * <b>Leases.</b> Without an explicit lease time the watchdog renews the lease on every node every third of the
 * watchdog timeout; a renewal must reach a majority within its validity. When so many nodes say the owner no
 * longer holds the lock that no majority is left, or the validity runs out without a majority renewal, the hold is
 * lost: the {@link LockListener} hears it once and the owner's release throws {@link LockLeaseLostException}.
 * <p>
 * <b>Fencing.</b> The token is the highest of the tokens the majority handed out, then stored on those nodes as
 * each node's last token. Any later majority shares at least one node with this one, whose next token is higher:
 * tokens strictly increase across successive holders, whatever the nodes' clocks, as long as no node of that
 * shared set forgot its keys (a restart without persistence, see below). Unlike the single-node lock the token is
 * not known to any one node as "the" lock's token, and it is not reused by reentry.
 * <p>
 * <b>Limits.</b> Like every lease it is not a perfect mutex: a client pause longer than the validity, or node
 * clocks that jump, can let two owners overlap; fence what matters. A node that restarts without persistence
 * while a lock is held forgets it: together with another minority, a second client can then get a majority. Run
 * the nodes with {@code appendonly yes} and {@code appendfsync always}, or keep a restarted node out of service
 * for longer than the longest lease (delayed restart). A node that does not answer costs one node timeout per
 * call, never a command timeout. {@link #newCondition()} is not supported.
 */
public final class RedlockLock implements LeaseLock {

	private final String name;

	private final String group;

	private final LockScripts.Keys keys;

	private final RedlockParts parts;

	RedlockLock(String name, String group, LockScripts.Keys keys, RedlockParts parts) {
		this.name = name;
		this.group = group;
		this.keys = keys;
		this.parts = parts;
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public String getGroup() {
		return this.group;
	}

	LockScripts.Keys keys() {
		return this.keys;
	}

	/** Waits as long as it takes, ignoring interrupts (the interrupt flag is restored afterwards). */
	@Override
	public void lock() {
		try {
			acquire(threadOwner(), null, Duration.ZERO, -1, false);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("Uninterruptible wait was interrupted", ex);
		}
	}

	@Override
	public void lock(Duration leaseTime) {
		requireLease(leaseTime);
		try {
			acquire(threadOwner(), leaseTime, Duration.ZERO, -1, false);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("Uninterruptible wait was interrupted", ex);
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		acquire(threadOwner(), null, Duration.ZERO, -1, true);
	}

	/** One attempt, no waiting. */
	@Override
	public boolean tryLock() {
		try {
			return acquire(threadOwner(), null, Duration.ZERO, 0, false) != null;
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("A single attempt does not wait", ex);
		}
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		return tryLock(Duration.ofNanos(unit.toNanos(time)));
	}

	@Override
	public boolean tryLock(Duration waitTime) throws InterruptedException {
		return acquire(threadOwner(), null, waitTime, waitNanos(waitTime), true) != null;
	}

	@Override
	public boolean tryLock(Duration waitTime, @Nullable Duration leaseTime) throws InterruptedException {
		if (leaseTime != null) {
			requireLease(leaseTime);
		}
		return acquire(threadOwner(), leaseTime, waitTime, waitNanos(waitTime), true) != null;
	}

	/**
	 * Releases one hold of the current thread; the lock is released on every node when the last hold is.
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 * @throws LockLeaseLostException if no majority held the lock for this owner any more
	 * @throws org.springframework.dao.DataAccessException if too few nodes answered to tell (the leases end the
	 * keys)
	 */
	@Override
	public void unlock() {
		RedlockHold hold = this.parts.holds().get(this, threadOwner());
		if (hold == null) {
			throw new IllegalMonitorStateException("Redlock '" + this.name + "' is not held by the current thread");
		}
		LockScripts.uninterruptibly(() -> this.parts.nodes().await(release(hold), "release of '" + this.name + "'"));
	}

	/** @throws UnsupportedOperationException always */
	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException("RedlockLock does not support conditions");
	}

	/** @return whether the current thread holds the lock, as this client counts it (no round trip) */
	public boolean isHeldByCurrentThread() {
		RedlockHold hold = this.parts.holds().get(this, threadOwner());
		return hold != null && !hold.lost;
	}

	@Override
	public long getFencingToken() {
		RedlockHold hold = this.parts.holds().get(this, threadOwner());
		if (hold == null || hold.lost) {
			throw new IllegalMonitorStateException("Redlock '" + this.name + "' is not held by the current thread");
		}
		return hold.fencingToken;
	}

	@Override
	public RedisLock.Lease acquire() {
		return acquire(this.parts.spec().defaultWaitTime());
	}

	@Override
	public RedisLock.Lease acquire(Duration waitTime) {
		return acquire(waitTime, null);
	}

	@Override
	public RedisLock.Lease acquire(Duration waitTime, @Nullable Duration leaseTime) {
		return tryAcquire(waitTime, leaseTime)
			.orElseThrow(() -> new LockNotAcquiredException(this.name, waitTime, null));
	}

	@Override
	public Optional<RedisLock.Lease> tryAcquire(Duration waitTime, @Nullable Duration leaseTime) {
		if (leaseTime != null) {
			requireLease(leaseTime);
		}
		try {
			RedlockHold hold = acquire(this.parts.holds().leaseOwner(), leaseTime, waitTime, waitNanos(waitTime), true);
			return Optional.ofNullable(hold).map(this::lease);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockNotAcquiredException(this.name, waitTime, ex);
		}
	}

	@Override
	public CompletionStage<RedisLock.Lease> acquireAsync(Duration waitTime) {
		return acquireAsync(waitTime, null);
	}

	/**
	 * Acquires without blocking the calling thread: every round is a set of asynchronous script calls, and the
	 * pauses between rounds run on the registry's scheduler. The stage completes on the driver's thread or the
	 * JDK's timer thread of the node timeouts: continue with the {@code ...Async} methods of
	 * {@link CompletionStage} for work that blocks. Should the caller cancel the stage, a lease acquired
	 * meanwhile is released.
	 */
	@Override
	public CompletionStage<RedisLock.Lease> acquireAsync(Duration waitTime, @Nullable Duration leaseTime) {
		long waitNanos = waitNanos(waitTime);
		if (leaseTime != null) {
			requireLease(leaseTime);
		}
		try {
			this.parts.background().ensureRunning();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return new RedlockAcquisition(this, this.parts, this.parts.holds().leaseOwner(), explicitLeaseMillis(leaseTime),
				waitTime, waitNanos)
			.start();
	}

	@Override
	public String toString() {
		return "RedlockLock[" + this.name + "]";
	}

	private @Nullable RedlockHold acquire(String owner, @Nullable Duration leaseTime, Duration waitTime,
			long waitNanos, boolean interruptible) throws InterruptedException {
		this.parts.background().ensureRunning();
		RedlockHold held = this.parts.holds().get(this, owner);
		if (held != null && !held.lost) {
			held.holdCount++;
			this.parts.listeners().notify((listener) -> listener.onAcquire(this.group,
					LockListener.AcquireResult.ACQUIRED, Duration.ZERO));
			return held;
		}
		return new RedlockAcquisition(this, this.parts, owner, explicitLeaseMillis(leaseTime), waitTime, waitNanos)
			.run(interruptible);
	}

	private @Nullable Long explicitLeaseMillis(@Nullable Duration leaseTime) {
		Duration lease = (leaseTime != null) ? leaseTime : this.parts.spec().defaultLeaseTime();
		return (lease != null) ? lease.toMillis() : null;
	}

	private String threadOwner() {
		return this.parts.holds().threadOwner();
	}

	RedisLock.Lease lease(RedlockHold hold) {
		return new LeaseHandle(hold);
	}

	/**
	 * Releases one hold: a re-entry locally, the last hold on every node.
	 * @return completed when a majority confirmed the release; exceptionally with {@link LockLeaseLostException}
	 * when no majority held the lock for this owner, or with the outage when too few nodes answered. The hold is
	 * forgotten in every case (nobody renews it; its lease ends it).
	 */
	private CompletionStage<@Nullable Void> release(RedlockHold hold) {
		if (hold.lost) {
			// The script deletes only this owner's keys: the nodes it still holds are freed before their lease ends.
			this.parts.nodes().releaseQuietly(this.keys, hold.owner);
			return CompletableFuture.failedFuture(releaseLost(hold));
		}
		if (hold.holdCount > 1) {
			hold.holdCount--;
			return CompletableFuture.completedFuture(null);
		}
		hold.releasing = true;
		RedlockNodes nodes = this.parts.nodes();
		return nodes.release(this.keys, hold.owner).thenApply((tally) -> {
			if (tally.done() >= nodes.quorum()) {
				this.parts.holds().forget(hold);
				Duration held = Duration.ofNanos(System.nanoTime() - hold.acquiredNanos);
				this.parts.listeners().notify((listener) -> listener.onRelease(this.group, held));
				return null;
			}
			if (tally.refused() > nodes.size() - nodes.quorum()) {
				this.parts.holds().markLost(hold);
				throw releaseLost(hold);
			}
			this.parts.holds().forget(hold);
			this.parts.listeners().notify((listener) -> listener.onReleaseFailed(this.group));
			throw nodes.unavailable("release", tally);
		});
	}

	private LockLeaseLostException releaseLost(RedlockHold hold) {
		hold.holdCount--;
		if (hold.holdCount <= 0) {
			this.parts.holds().forget(hold);
		}
		return new LockLeaseLostException(this.name, hold.fencingToken);
	}

	private void requireLease(Duration leaseTime) {
		Objects.requireNonNull(leaseTime, "leaseTime");
		this.parts.spec().requireLease(leaseTime);
	}

	private static long waitNanos(Duration waitTime) {
		Objects.requireNonNull(waitTime, "waitTime");
		if (waitTime.isNegative()) {
			return 0;
		}
		try {
			return waitTime.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

	private final class LeaseHandle implements RedisLock.Lease {

		private final RedlockHold hold;

		private boolean closed;

		LeaseHandle(RedlockHold hold) {
			this.hold = hold;
		}

		@Override
		public String lockName() {
			return RedlockLock.this.name;
		}

		@Override
		public long fencingToken() {
			return this.hold.fencingToken;
		}

		@Override
		public boolean isActive() {
			synchronized (this) {
				return !this.closed && !this.hold.lost;
			}
		}

		@Override
		public void close() {
			if (markClosed()) {
				LockScripts.uninterruptibly(() -> RedlockLock.this.parts.nodes()
					.await(release(this.hold), "release of '" + RedlockLock.this.name + "'"));
			}
		}

		@Override
		public CompletionStage<@Nullable Void> releaseAsync() {
			return markClosed() ? release(this.hold) : CompletableFuture.completedFuture(null);
		}

		private synchronized boolean markClosed() {
			if (this.closed) {
				return false;
			}
			this.closed = true;
			return true;
		}

		@Override
		public String toString() {
			return "Lease[" + RedlockLock.this.name + ", token " + this.hold.fencingToken + ", redlock]";
		}

	}

}
