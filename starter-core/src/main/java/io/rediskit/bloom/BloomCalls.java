package io.rediskit.bloom;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.rediskit.support.Listeners;
import io.rediskit.support.Observations;
import io.rediskit.support.ObservedCalls;
import io.rediskit.support.RedisKitObservation;
import org.apache.commons.logging.Log;

/**
 * What every filter, growing or not, does around a call: observe it ({@link RedisKitObservation#BLOOM_OPERATION},
 * the outage log included), and when it completes count the hits and tell the listeners.
 */
final class BloomCalls {

	private final String name;

	private final Listeners<BloomFilterListener> listeners;

	private final ObservedCalls calls;

	BloomCalls(String name, Listeners<BloomFilterListener> listeners, Supplier<Observations> observations, Log logger) {
		this.name = name;
		this.listeners = listeners;
		this.calls = new ObservedCalls("Bloom filter", RedisKitObservation.BLOOM_OPERATION, name, observations, logger);
	}

	CompletionStage<List<Boolean>> observed(BloomOperation operation, int items,
			Supplier<CompletionStage<List<Boolean>>> call) {
		return this.calls.observed(operation.tag(), call).thenApply((answers) -> {
			int hits = 0;
			for (Boolean answer : answers) {
				hits += answer ? 1 : 0;
			}
			int counted = hits;
			this.listeners.notify((listener) -> listener.onItems(this.name, operation, items, counted));
			return answers;
		});
	}

}
