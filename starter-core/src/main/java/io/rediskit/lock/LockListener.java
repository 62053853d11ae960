package io.rediskit.lock;

import java.time.Duration;
import java.util.List;

/**
 * Observes locks, for metrics and logging. Every method has an empty default; implementations must be
 * fast and must not throw, since they run on the caller's thread or on the watchdog's.
 * <p>
 * {@code lockName} is the name a lock group was created with ({@link LockRegistry#getLock(String, String)}'s
 * first argument), never the per-call key, so it is safe as a metric tag.
 */
public interface LockListener {

	/** A listener that does nothing. */
	LockListener NONE = new LockListener() {
	};

	/**
	 * One listener that tells several, in order.
	 * @param listeners the listeners
	 * @return {@link #NONE} for none, the listener itself for one, else a listener that calls each
	 */
	static LockListener composite(List<? extends LockListener> listeners) {
		if (listeners.isEmpty()) {
			return NONE;
		}
		if (listeners.size() == 1) {
			return listeners.get(0);
		}
		List<LockListener> all = List.copyOf(listeners);
		return new LockListener() {

			@Override
			public void onAcquire(String lockName, AcquireResult result, Duration waited) {
				all.forEach((listener) -> listener.onAcquire(lockName, result, waited));
			}

			@Override
			public void onRelease(String lockName, Duration held) {
				all.forEach((listener) -> listener.onRelease(lockName, held));
			}

			@Override
			public void onRenewal(String lockName, RenewalResult result) {
				all.forEach((listener) -> listener.onRenewal(lockName, result));
			}

			@Override
			public void onLeaseLost(String lockName, long fencingToken) {
				all.forEach((listener) -> listener.onLeaseLost(lockName, fencingToken));
			}

		};
	}

	/**
	 * An acquisition attempt ended.
	 * @param lockName the lock group's name
	 * @param result how it ended
	 * @param waited time from the call to its end
	 */
	default void onAcquire(String lockName, AcquireResult result, Duration waited) {
	}

	/**
	 * The last hold of a lock was released.
	 * @param lockName the lock group's name
	 * @param held time from the first acquisition to the release
	 */
	default void onRelease(String lockName, Duration held) {
	}

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

	/** How an acquisition attempt ended. */
	enum AcquireResult {

		/** The lock is held. */
		ACQUIRED,

		/** The wait time ran out first. */
		TIMEOUT,

		/** The waiting thread was interrupted. */
		INTERRUPTED,

		/** Redis failed to answer. */
		ERROR

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
