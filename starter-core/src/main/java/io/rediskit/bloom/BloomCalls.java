package io.rediskit.bloom;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.Listeners;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.Stages;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;

/**
 * What every filter, growing or not, does when a call completes: count the hits, tell the listeners, and log an
 * outage once per interval.
 */
final class BloomCalls {

	private final String name;

	private final Listeners<BloomFilterListener> listeners;

	private final ThrottledLog outages;

	BloomCalls(String name, Listeners<BloomFilterListener> listeners, Log logger) {
		this.name = name;
		this.listeners = listeners;
		this.outages = new ThrottledLog(logger, Duration.ofSeconds(10), "Bloom filter '" + name + "' cannot reach Redis");
	}

	CompletionStage<List<Boolean>> finish(CompletionStage<List<Boolean>> reply, BloomOperation operation, int items,
			long startNanos) {
		return reply.handle((answers, failure) -> {
			if (failure == null) {
				int hits = 0;
				for (Boolean answer : answers) {
					hits += answer ? 1 : 0;
				}
				int counted = hits;
				Duration latency = Duration.ofNanos(System.nanoTime() - startNanos);
				this.listeners.notify((listener) -> listener.onOperation(this.name, operation, items, counted, latency));
				return answers;
			}
			Throwable cause = Stages.unwrap(failure);
			if (RedisFailures.isUnavailable(cause) && cause instanceof RuntimeException outage) {
				this.listeners.notify((listener) -> listener.onFailure(this.name, operation, outage));
				this.outages.warn(cause, "the " + operation.tag() + " call fails");
			}
			throw new CompletionException(cause);
		});
	}

}
