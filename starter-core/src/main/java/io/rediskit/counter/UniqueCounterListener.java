package io.rediskit.counter;

import io.rediskit.support.OperationListener;

/**
 * Observes unique counter calls, for metrics: {@code add}, {@code count} and {@code union} (under the first
 * counter of the union) by the counter's configured name; an add into a bucket past the retention is
 * {@linkplain #onRefused refused}. Methods have empty defaults, run on the caller's (or the driver's) thread and
 * must not block; an exception thrown by a listener is logged and ignored.
 */
public interface UniqueCounterListener extends OperationListener {

	/** A listener that does nothing. */
	UniqueCounterListener NONE = new UniqueCounterListener() {
	};

}
