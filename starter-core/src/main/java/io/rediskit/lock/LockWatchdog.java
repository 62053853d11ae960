package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;

import io.rediskit.lock.LockListener.RenewalResult;
import io.rediskit.support.Listeners;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.TaskScheduler;

/**
 * Extends the leases of all watchdog holds of one registry, every third of the watchdog timeout, whether a
 * thread, a lease or an asynchronous acquisition took them, through the registry's {@link Engine}. A hold the
 * engine finds gone or owned by someone else is lost and never renewed again; so is a hold that could not be
 * renewed before its lease certainly ended ({@link LockHold#leaseElapsed}: Redis, or a majority of nodes,
 * unreachable), since by then its key has expired.
 * <p>
 * Renewals are sent without waiting for their replies, so the tick never blocks its scheduler thread, and at
 * most one renewal per hold is in flight. The tick is scheduled by {@link #start(TaskScheduler)} and cancelled
 * by {@link #stop()}.
 */
final class LockWatchdog {

	private static final Log logger = LogFactory.getLog(LockWatchdog.class);

	private final LockHolds holds;

	private final Listeners<LockListener> listeners;

	private final ThrottledLog outages;

	private final Duration period;

	private @Nullable ScheduledFuture<?> tick;

	LockWatchdog(LockHolds holds, Listeners<LockListener> listeners, ThrottledLog outages,
			Duration watchdogTimeout) {
		this.holds = holds;
		this.listeners = listeners;
		this.outages = outages;
		this.period = Duration.ofMillis(Math.max(1, watchdogTimeout.toMillis() / 3));
	}

	synchronized void start(TaskScheduler scheduler) {
		if (this.tick == null) {
			this.tick = scheduler.scheduleWithFixedDelay(this::renewAll, scheduler.getClock().instant().plus(this.period),
					this.period);
		}
	}

	synchronized void stop() {
		if (this.tick != null) {
			this.tick.cancel(false);
			this.tick = null;
		}
	}

	/** One round: package-private so that tests can run one now. */
	void renewAll() {
		for (LockHold hold : this.holds.all()) {
			if (hold.watchdog && !hold.isLost() && !hold.isReleasing() && hold.startRenewal()) {
				// An escaping exception would cancel the periodic task: every other lease would then run out.
				try {
					renew(hold);
				}
				catch (Throwable ex) {
					hold.renewalEnded();
					logger.error("Renewal of lock '" + hold.lock.name() + "' failed unexpectedly", ex);
				}
			}
		}
	}

	/** One renewal of a hold a round found renewable; its answer is read when it comes. */
	void renew(LockHold hold) {
		// The hold's own engine: one registry's handles may run on sibling engines (a read-write lock's two sides).
		hold.lock.parts().engine().renew(hold).whenComplete((result, failure) -> {
			try {
				if (failure != null) {
					failed(hold, failure);
				}
				else if (result == RenewalResult.RENEWED) {
					notify(hold, RenewalResult.RENEWED);
				}
				else if (!hold.isReleasing()) {
					// Gone or taken over while the owner still thought it held the lock.
					notify(hold, RenewalResult.LOST);
					this.holds.markLost(hold);
				}
			}
			finally {
				hold.renewalEnded();
			}
		});
	}

	private void failed(LockHold hold, Throwable failure) {
		Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
				: failure;
		notify(hold, RenewalResult.ERROR);
		if (RedisFailures.isUnavailable(cause)) {
			this.outages.warn(cause);
		}
		else {
			logger.warn("Renewal of lock '" + hold.lock.name() + "' failed, retrying on the next tick", cause);
		}
		if (!hold.isReleasing() && hold.leaseElapsed(System.nanoTime())) {
			logger.warn("Lock '" + hold.lock.name() + "' could not be renewed before its lease ended and is lost");
			this.holds.markLost(hold);
		}
	}

	private void notify(LockHold hold, RenewalResult result) {
		this.listeners.notify((listener) -> listener.onRenewal(hold.lock.group(), result));
	}

}
