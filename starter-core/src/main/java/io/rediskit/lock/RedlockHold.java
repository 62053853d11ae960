package io.rediskit.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Local record of one owner's hold on one {@link RedlockLock}: what the watchdog renews, what unlock checks and
 * what the actuator lists. Re-entries by the owning thread are counted here only, never sent to the nodes.
 */
final class RedlockHold {

	final RedlockLock lock;

	final String owner;

	final long fencingToken;

	final long leaseMillis;

	final boolean watchdog;

	final Instant heldSince;

	final long acquiredNanos;

	volatile int holdCount;

	/** End of the validity of the last acquisition or majority renewal, by {@link System#nanoTime()}. */
	volatile long validUntilNanos;

	/** A release is in flight: a renewal that finds the keys gone is not a loss. */
	volatile boolean releasing;

	/** No majority holds the lock for this owner any more; never renewed again. */
	volatile boolean lost;

	/** A renewal is in flight: the watchdog does not send another one for this hold. */
	final AtomicBoolean renewing = new AtomicBoolean();

	RedlockHold(RedlockLock lock, String owner, long fencingToken, long leaseMillis, boolean watchdog,
			Instant heldSince, long acquiredNanos, long validUntilNanos) {
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

	/** Whether the validity has run out without a confirmed renewal by a majority. */
	boolean validityElapsed(long nowNanos) {
		return nowNanos - this.validUntilNanos >= 0;
	}

	HeldLock describe(long nowNanos) {
		String ownerKind = this.owner.contains(":t")
				? "thread:" + this.owner.substring(this.owner.lastIndexOf(":t") + 2) : "lease";
		return new HeldLock(this.lock.getName(), this.lock.getGroup(), this.heldSince,
				Duration.ofNanos(Math.max(0, this.validUntilNanos - nowNanos)), this.fencingToken, this.holdCount,
				this.watchdog, ownerKind);
	}

}
