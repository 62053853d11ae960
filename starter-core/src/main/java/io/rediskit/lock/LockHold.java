package io.rediskit.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Local record of one owner's hold on one lock, whatever the engine: what the watchdog renews, what unlock checks
 * and what the actuator lists. Lives from the first acquisition to the last release, so memory is bounded by the
 * locks held at a time, not by the names ever used.
 */
final class LockHold {

	final RedisLock lock;

	final String owner;

	final long fencingToken;

	final long leaseMillis;

	final boolean watchdog;

	final Instant heldSince;

	final long acquiredNanos;

	volatile int holdCount;

	/**
	 * When the lease certainly still runs, by {@link System#nanoTime()}: the last confirmed acquisition or renewal
	 * plus the lease (single node), or the validity a majority confirmed (Redlock).
	 */
	volatile long validUntilNanos;

	/** A release is in flight: a renewal that finds the key gone is not a loss. */
	volatile boolean releasing;

	/** The lease ended before the owner released it; never renewed again. */
	volatile boolean lost;

	/** A renewal is in flight: the watchdog does not send another one for this hold. */
	final AtomicBoolean renewing = new AtomicBoolean();

	LockHold(RedisLock lock, String owner, long fencingToken, long leaseMillis, boolean watchdog, Instant heldSince,
			long acquiredNanos, long validUntilNanos) {
		this.lock = lock;
		this.owner = owner;
		this.fencingToken = fencingToken;
		this.leaseMillis = leaseMillis;
		this.watchdog = watchdog;
		this.heldSince = heldSince;
		this.acquiredNanos = acquiredNanos;
		this.validUntilNanos = validUntilNanos;
		this.holdCount = 1;
	}

	/** Whether the lease has certainly run out without a confirmed extension. */
	boolean leaseElapsed(long nowNanos) {
		return nowNanos - this.validUntilNanos >= 0;
	}

	HeldLock describe(long nowNanos) {
		String ownerKind = this.owner.contains(":t") ? "thread:" + this.owner.substring(this.owner.lastIndexOf(":t") + 2)
				: "lease";
		return new HeldLock(this.lock.name(), this.lock.group(), this.heldSince,
				Duration.ofNanos(Math.max(0, this.validUntilNanos - nowNanos)), this.fencingToken, this.holdCount,
				this.watchdog, ownerKind);
	}

}
