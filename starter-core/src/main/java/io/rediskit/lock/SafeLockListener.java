package io.rediskit.lock;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Shields the lock from its listeners: an exception from a listener is logged, never thrown into an
 * acquisition, a release or the watchdog's loop.
 */
final class SafeLockListener implements LockListener {

	private static final Log logger = LogFactory.getLog(SafeLockListener.class);

	private final LockListener delegate;

	SafeLockListener(LockListener delegate) {
		this.delegate = delegate;
	}

	@Override
	public void onAcquire(String lockName, AcquireResult result, Duration waited) {
		run(() -> this.delegate.onAcquire(lockName, result, waited));
	}

	@Override
	public void onRelease(String lockName, Duration held) {
		run(() -> this.delegate.onRelease(lockName, held));
	}

	@Override
	public void onRenewal(String lockName, RenewalResult result) {
		run(() -> this.delegate.onRenewal(lockName, result));
	}

	@Override
	public void onLeaseLost(String lockName, long fencingToken) {
		run(() -> this.delegate.onLeaseLost(lockName, fencingToken));
	}

	private static void run(Runnable call) {
		try {
			call.run();
		}
		catch (RuntimeException ex) {
			logger.warn("A LockListener failed; the lock carries on", ex);
		}
	}

}
