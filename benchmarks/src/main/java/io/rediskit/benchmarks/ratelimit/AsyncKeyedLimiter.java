package io.rediskit.benchmarks.ratelimit;

import java.util.concurrent.CompletionStage;

/** One library's limiter over keys {@code 0} to {@code keys - 1}, asked without waiting for the answer. */
@FunctionalInterface
interface AsyncKeyedLimiter {

	/**
	 * Asks for one permit.
	 * @param key the key's index
	 * @return whether it was granted, completed on the client's own thread; exceptionally when there was no
	 * decision (for redis-kit, also when its failure policy decided)
	 */
	CompletionStage<Boolean> tryAcquireAsync(int key);

}
