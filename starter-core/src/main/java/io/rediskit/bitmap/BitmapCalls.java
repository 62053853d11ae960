package io.rediskit.bitmap;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.rediskit.support.Listeners;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.RetentionPassedException;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * What every call of one calendar or counters handle does around its command: time it, tell the listeners,
 * log an outage once per interval, and let the sync methods wait with the exception the call failed with.
 */
final class BitmapCalls {

	private static final Log logger = LogFactory.getLog(BitmapCalls.class);

	private final String name;

	private final Listeners<BitmapListener> listeners;

	private final ThrottledLog outages;

	BitmapCalls(String kind, String name, Listeners<BitmapListener> listeners) {
		this.name = name;
		this.listeners = listeners;
		this.outages = new ThrottledLog(logger, Duration.ofSeconds(10), kind + " '" + name + "' cannot reach Redis");
	}

	<T> CompletionStage<T> observed(String operation, Supplier<CompletionStage<T>> call) {
		long start = System.nanoTime();
		return call.get().handle((result, failure) -> {
			if (failure == null) {
				Duration latency = Duration.ofNanos(System.nanoTime() - start);
				this.listeners.notify((listener) -> listener.onOperation(this.name, operation, latency));
				return result;
			}
			Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
					: failure;
			if (cause instanceof RetentionPassedException refusal) {
				Duration latency = Duration.ofNanos(System.nanoTime() - start);
				this.listeners.notify((listener) -> listener.onRefused(this.name, operation, latency, refusal));
			}
			else if (RedisFailures.isUnavailable(cause) && cause instanceof RuntimeException outage) {
				this.listeners.notify((listener) -> listener.onFailure(this.name, operation, outage));
				this.outages.warn(cause, "the " + operation + " call fails");
			}
			throw new CompletionException(cause);
		});
	}


}
