package io.rediskit.support;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/**
 * A warning logged at most once per interval, with how many were left out since the last one: an outage under
 * load must cost one log line per primitive per interval, not a stack trace per call. The stack trace is
 * logged at debug level only.
 */
public final class ThrottledLog {

	private final Log logger;

	private final long intervalNanos;

	private final String message;

	private final AtomicLong suppressed = new AtomicLong();

	private volatile long lastLogged;

	/**
	 * Creates a throttled warning.
	 * @param logger where to log
	 * @param interval the least time between two warnings
	 * @param message what the warning says; the failure's message and the count of warnings left out follow
	 */
	public ThrottledLog(Log logger, Duration interval, String message) {
		this.logger = logger;
		this.intervalNanos = interval.toNanos();
		this.message = message;
		this.lastLogged = System.nanoTime() - this.intervalNanos;
	}

	/**
	 * Logs the warning unless one was logged within the interval, in which case it is counted.
	 * @param failure what went wrong
	 */
	public void warn(Throwable failure) {
		warn(failure, null);
	}

	/**
	 * Logs the warning, with what is done about the failure, unless one was logged within the interval.
	 * @param failure what went wrong
	 * @param consequence what is done about it, such as {@code applying FAIL_CLOSED}; appended to the message
	 */
	public void warn(Throwable failure, @Nullable String consequence) {
		long now = System.nanoTime();
		long last = this.lastLogged;
		if (now - last < this.intervalNanos) {
			this.suppressed.incrementAndGet();
			return;
		}
		synchronized (this) {
			if (this.lastLogged != last) {
				this.suppressed.incrementAndGet();
				return;
			}
			this.lastLogged = now;
		}
		long left = this.suppressed.getAndSet(0);
		String text = this.message + ((consequence != null) ? "; " + consequence : "") + ": " + failure.getMessage()
				+ ((left > 0) ? " (" + left + " more since the last warning)" : "") + "; next warning in "
				+ Duration.ofNanos(this.intervalNanos).toSeconds() + "s at the earliest";
		if (this.logger.isDebugEnabled()) {
			this.logger.warn(text, failure);
		}
		else {
			this.logger.warn(text);
		}
	}

}
