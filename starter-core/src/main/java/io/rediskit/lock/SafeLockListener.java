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
		try {
			this.delegate.onAcquire(lockName, result, waited);
		}
		catch (RuntimeException ex) {
			failed(ex);
		}
	}

	@Override
	public void onRelease(String lockName, Duration held) {
		try {
			this.delegate.onRelease(lockName, held);
		}
		catch (RuntimeException ex) {
			failed(ex);
		}
	}

	@Override
	public void onRenewal(String lockName, RenewalResult result) {
		try {
			this.delegate.onRenewal(lockName, result);
		}
		catch (RuntimeException ex) {
			failed(ex);
		}
	}

	@Override
	public void onLeaseLost(String lockName, long fencingToken) {
		try {
			this.delegate.onLeaseLost(lockName, fencingToken);
		}
		catch (RuntimeException ex) {
			failed(ex);
		}
	}

	private static void failed(RuntimeException ex) {
		logger.warn("A LockListener failed; the lock carries on", ex);
	}

}
