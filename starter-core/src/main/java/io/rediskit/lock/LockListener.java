package io.rediskit.lock;

/**
 * Observes locks' domain events, for metrics and logging: renewals, lost leases, failed releases and replica
 * shortfalls. How long a caller waited for a lock and how long it held it are timings, not events: they are the
 * observations {@code rediskit.lock.wait} and {@code rediskit.lock.hold} (docs/observability.md), which the
 * lock meters come from. Every method has an empty default; implementations must be fast and should not block, since they run on the caller's thread, the scheduler's or the driver's (for
 * asynchronous acquisitions, releases and renewals). An exception a listener throws is logged, at most once per
 * interval, and never breaks a lock call, the watchdog or the other listeners.
 * <p>
 * {@code lockName} is the name a lock group was created with ({@link LockRegistry#getLock(String, String)}'s
 * first argument), never the per-call key, so it is safe as a metric tag.
 */
public interface LockListener {

	/** A listener that does nothing. */
	LockListener NONE = new LockListener() {
	};

	/**
	 * The watchdog tried to extend a lease.
	 * @param lockName the lock group's name
	 * @param result how it went
	 */
	default void onRenewal(String lockName, RenewalResult result) {
	}

	/**
	 * A holder lost its lock: the lease ran out or another owner took it before the holder released it.
	 * Fired once per lost hold, by the watchdog or by the release that found out.
	 * @param lockName the lock group's name
	 * @param fencingToken the token of the lost hold; writes fenced with it must now be rejected
	 */
	default void onLeaseLost(String lockName, long fencingToken) {
	}

	/**
	 * The last release of a hold could not reach Redis (an outage): the hold is given up, nobody renews it, and
	 * its lease ends it; no other owner can take the lock before then. Work done under the lock stands: the
	 * {@code @DistributedLock} advisor returns the method's result.
	 * @param lockName the lock group's name
	 */
	default void onReleaseFailed(String lockName) {
	}

	/**
	 * Fired when fewer replicas acknowledged an acquisition or a renewal than {@link LockSpec#replicaWait()}
	 * requires and the write stood (an acquisition under {@code ACCEPT}, or any renewal): a failover now could
	 * lose it.
	 * @param lockName the lock's configured name
	 * @param acknowledged how many replicas acknowledged
	 * @param required how many were required
	 */
	default void onReplicaShortfall(String lockName, long acknowledged, int required) {
	}

	/** How a watchdog renewal went. */
	enum RenewalResult {

		/** The lease was extended. */
		RENEWED,

		/** The owner no longer held the lock; it is not renewed again. */
		LOST,

		/** Redis failed to answer; renewal is tried again on the next tick. */
		ERROR

	}

}
