package io.rediskit.bitmap;

import io.rediskit.support.OperationListener;

/**
 * Observes calendar, daily activity and packed-counter calls, for metrics: operations such as {@code check-in},
 * {@code streak}, {@code mark-active}, {@code retention} or {@code increment}, by the configured name; a check-in
 * or mark past the retention is {@linkplain #onRefused refused}. Methods have empty defaults, run on the caller's (or
 * the driver's) thread and must not block; an exception thrown by a listener is logged and ignored.
 */
public interface BitmapListener extends OperationListener {

	/** A listener that does nothing. */
	BitmapListener NONE = new BitmapListener() {
	};

}
