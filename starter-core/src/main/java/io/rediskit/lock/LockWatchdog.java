package io.rediskit.lock;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Extends the leases of all watchdog holds of one factory from a single scheduler thread, every third of the
 * watchdog timeout. A hold whose key is gone or owned by someone else is lost and never renewed again; so is
 * a hold that could not be renewed for a whole lease (Redis unreachable), since by then its key has expired.
 */
final class LockWatchdog implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LockWatchdog.class);

	private final ScheduledExecutorService scheduler;

	private final Collection<LockHold> holds;

	private final LockRegistry factory;

	LockWatchdog(LockRegistry factory, Collection<LockHold> holds, Duration watchdogTimeout) {
		this.factory = factory;
		this.holds = holds;
		this.scheduler = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "redis-kit-lock-watchdog");
			thread.setDaemon(true);
			return thread;
		});
		long periodMillis = Math.max(1, watchdogTimeout.toMillis() / 3);
		this.scheduler.scheduleWithFixedDelay(this::renewAll, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
	}

	private void renewAll() {
		for (LockHold hold : this.holds) {
			if (hold.watchdog && !hold.lost && !hold.releasing) {
				// An escaping exception would cancel the periodic task: every other lease would then run out.
				try {
					renew(hold);
				}
				catch (Throwable ex) {
					logger.error("Renewal of lock '" + hold.lock.getName() + "' failed unexpectedly", ex);
				}
			}
		}
	}

	private void renew(LockHold hold) {
		long started = System.nanoTime();
		boolean renewed;
		try {
			renewed = this.factory.renew(hold);
		}
		catch (RuntimeException ex) {
			this.factory.listener().onRenewal(hold.lock.getGroup(), LockListener.RenewalResult.ERROR);
			if (hold.leaseElapsed(System.nanoTime())) {
				logger.warn("Lock '" + hold.lock.getName() + "' could not be renewed for a whole lease and is lost", ex);
				this.factory.markLost(hold);
			}
			else if (logger.isDebugEnabled()) {
				logger.debug("Renewal of lock '" + hold.lock.getName() + "' failed, retrying on the next tick", ex);
			}
			return;
		}
		if (renewed) {
			hold.extendedNanos = started;
			this.factory.listener().onRenewal(hold.lock.getGroup(), LockListener.RenewalResult.RENEWED);
		}
		else if (!hold.releasing) {
			// Gone or taken over while the owner still thought it held the lock.
			this.factory.listener().onRenewal(hold.lock.getGroup(), LockListener.RenewalResult.LOST);
			this.factory.markLost(hold);
		}
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

}
