package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;

import io.rediskit.support.Listeners;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.TaskScheduler;

/**
 * Extends the leases of all watchdog holds of one registry, every third of the watchdog timeout, whether a
 * thread, a lease or an asynchronous acquisition took them. A hold whose key is gone or owned by someone else is
 * lost and never renewed again; so is a hold that could not be renewed for a whole lease (Redis unreachable),
 * since by then its key has expired.
 * <p>
 * Renewals are sent without waiting for their replies, so the tick never blocks its scheduler thread, and at
 * most one renewal per hold is in flight. The tick is scheduled by {@link #start(TaskScheduler)} and cancelled
 * by {@link #stop()}.
 */
final class LockWatchdog {

	private static final Log logger = LogFactory.getLog(LockWatchdog.class);

	private final LockScripts scripts;

	private final LockHolds holds;

	private final Listeners<LockListener> listeners;

	private final ThrottledLog outages;

	private final Duration period;

	private @Nullable ScheduledFuture<?> tick;

	LockWatchdog(LockScripts scripts, LockHolds holds, Listeners<LockListener> listeners, ThrottledLog outages,
			Duration watchdogTimeout) {
		this.scripts = scripts;
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

	private void renewAll() {
		for (LockHold hold : this.holds.all()) {
			if (hold.watchdog && !hold.lost && !hold.releasing && hold.renewing.compareAndSet(false, true)) {
				// An escaping exception would cancel the periodic task: every other lease would then run out.
				try {
					renew(hold);
				}
				catch (Throwable ex) {
					hold.renewing.set(false);
					logger.error("Renewal of lock '" + hold.lock.getName() + "' failed unexpectedly", ex);
				}
			}
		}
	}

	private void renew(LockHold hold) {
		long started = System.nanoTime();
		this.scripts.renew(hold.lock.keys(), hold.owner, hold.leaseMillis).whenComplete((renewed, failure) -> {
			try {
				if (failure != null) {
					failed(hold, failure);
				}
				else if (renewed) {
					hold.extendedNanos = started;
					this.listeners.notify((listener) -> listener.onRenewal(hold.lock.getGroup(),
							LockListener.RenewalResult.RENEWED));
				}
				else if (!hold.releasing) {
					// Gone or taken over while the owner still thought it held the lock.
					this.listeners.notify((listener) -> listener.onRenewal(hold.lock.getGroup(),
							LockListener.RenewalResult.LOST));
					this.holds.markLost(hold);
				}
			}
			finally {
				hold.renewing.set(false);
			}
		});
	}

	private void failed(LockHold hold, Throwable failure) {
		this.listeners.notify((listener) -> listener.onRenewal(hold.lock.getGroup(), LockListener.RenewalResult.ERROR));
		if (RedisFailures.isUnavailable(failure)) {
			this.outages.warn(failure);
		}
		else {
			logger.warn("Renewal of lock '" + hold.lock.getName() + "' failed, retrying on the next tick", failure);
		}
		if (hold.leaseElapsed(System.nanoTime())) {
			logger.warn("Lock '" + hold.lock.getName() + "' could not be renewed for a whole lease and is lost");
			this.holds.markLost(hold);
		}
	}

}
