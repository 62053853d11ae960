package io.rediskit.support;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;

/**
 * What every call of one named structure does around its command: time it, tell the {@link OperationListener}s
 * whether it completed, was refused past its retention or could not reach Redis, and log an outage once per
 * interval. The returned stage fails with the cause itself (in a {@link CompletionException}), so sync methods
 * that join it throw what the call failed with.
 *
 * @param <L> the structure's listener type
 */
public final class ObservedCalls<L extends OperationListener> {

	private final String name;

	private final Listeners<L> listeners;

	private final ThrottledLog outages;

	/**
	 * @param kind what the structure is, for the outage log ({@code "Unique counter"})
	 * @param name its configured name
	 * @param listeners who is told of each call
	 * @param logger where the outage warning goes, the structure's own category
	 */
	public ObservedCalls(String kind, String name, Listeners<L> listeners, Log logger) {
		this.name = name;
		this.listeners = listeners;
		this.outages = new ThrottledLog(logger, Duration.ofSeconds(10), kind + " '" + name + "' cannot reach Redis");
	}

	/**
	 * Makes the call and observes its outcome.
	 * @param operation the operation's name, a metric tag
	 * @param call makes the call
	 * @param <T> the call's result
	 * @return the call's stage, observed
	 */
	public <T> CompletionStage<T> observed(String operation, Supplier<CompletionStage<T>> call) {
		long start = System.nanoTime();
		return call.get().handle((result, failure) -> {
			Duration latency = Duration.ofNanos(System.nanoTime() - start);
			if (failure == null) {
				this.listeners.notify((listener) -> listener.onOperation(this.name, operation, latency));
				return result;
			}
			Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
					: failure;
			if (cause instanceof RetentionPassedException refusal) {
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
