package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;

import io.rediskit.support.Listeners;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.TaskScheduler;

/**
 * Extends the leases of all watchdog holds of one {@link RedlockRegistry} on every node, every third of the
 * watchdog timeout. A renewal counts when a majority of nodes extended the lease within the round's validity
 * ({@link RedlockSpec#validity}); the hold is then valid until that validity ends. The hold is lost, reported
 * once to the {@link LockListener}s and never renewed again, when so many nodes answered that the owner no longer
 * holds the lock there that no majority is left, or when its validity ran out without a majority renewal (too
 * many nodes unreachable). Renewals never block the scheduler thread; at most one per hold is in flight.
 */
final class RedlockWatchdog {

	private static final Log logger = LogFactory.getLog(RedlockWatchdog.class);

	private final RedlockNodes nodes;

	private final RedlockHolds holds;

	private final RedlockSpec spec;

	private final Listeners<LockListener> listeners;

	private final Duration period;

	private @Nullable ScheduledFuture<?> tick;

	RedlockWatchdog(RedlockNodes nodes, RedlockHolds holds, RedlockSpec spec, Listeners<LockListener> listeners) {
		this.nodes = nodes;
		this.holds = holds;
		this.spec = spec;
		this.listeners = listeners;
		this.period = Duration.ofMillis(Math.max(1, spec.watchdogTimeout().toMillis() / 3));
	}

	synchronized void start(TaskScheduler scheduler) {
		if (this.tick == null) {
			this.tick = scheduler.scheduleWithFixedDelay(this::renewAll,
					scheduler.getClock().instant().plus(this.period), this.period);
		}
	}

	synchronized void stop() {
		if (this.tick != null) {
			this.tick.cancel(false);
			this.tick = null;
		}
	}

	void renewAll() {
		for (RedlockHold hold : this.holds.all()) {
			if (hold.watchdog && !hold.lost && !hold.releasing && hold.renewing.compareAndSet(false, true)) {
				// An escaping exception would cancel the periodic task: every other lease would then run out.
				try {
					renew(hold);
				}
				catch (Throwable ex) {
					hold.renewing.set(false);
					logger.error("Renewal of Redlock '" + hold.lock.getName() + "' failed unexpectedly", ex);
				}
			}
		}
	}

	private void renew(RedlockHold hold) {
		long started = System.nanoTime();
		this.nodes.renew(hold.lock.keys(), hold.owner, hold.leaseMillis).whenComplete((tally, failure) -> {
			try {
				renewed(hold, started, tally);
			}
			finally {
				hold.renewing.set(false);
			}
		});
	}

	private void renewed(RedlockHold hold, long started, RedlockNodes.Tally tally) {
		long now = System.nanoTime();
		Duration lease = Duration.ofMillis(hold.leaseMillis);
		Duration validity = this.spec.validity(lease, Duration.ofNanos(now - started));
		int quorum = this.nodes.quorum();
		if (tally.done() >= quorum && !validity.isNegative() && !validity.isZero() && !hold.validityElapsed(now)) {
			hold.validUntilNanos = now + validity.toNanos();
			notify(hold, LockListener.RenewalResult.RENEWED);
			return;
		}
		if (hold.releasing) {
			return;
		}
		if (tally.refused() > this.nodes.size() - quorum) {
			// Gone or taken on so many nodes that no majority is left for this owner.
			notify(hold, LockListener.RenewalResult.LOST);
			this.holds.markLost(hold);
			return;
		}
		notify(hold, LockListener.RenewalResult.ERROR);
		if (hold.validityElapsed(System.nanoTime())) {
			logger.warn("Redlock '" + hold.lock.getName() + "' could not be renewed on a majority of nodes ("
					+ tally.done() + " of " + this.nodes.size() + ") before its validity ended and is lost");
			this.holds.markLost(hold);
		}
	}

	private void notify(RedlockHold hold, LockListener.RenewalResult result) {
		this.listeners.notify((listener) -> listener.onRenewal(hold.lock.getGroup(), result));
	}

}
