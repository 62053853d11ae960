package io.rediskit.id;

import java.time.Duration;

/**
 * Observes the blocks id generators reserve, for metrics. Methods have empty defaults, run on the caller's (or
 * the driver's) thread and must not block; an exception thrown by a listener is logged and ignored.
 * {@code generator} is the configured name, safe as a metric tag.
 */
public interface IdGeneratorListener {

	/** A listener that does nothing. */
	IdGeneratorListener NONE = new IdGeneratorListener() {
	};

	/**
	 * A block was reserved.
	 * @param generator the generator's name
	 * @param blockSize how many ids it holds
	 * @param latency time from the request to the reply
	 */
	default void onBlock(String generator, int blockSize, Duration latency) {
	}

	/**
	 * Redis could not answer; the call fails with the exception.
	 * @param generator the generator's name
	 * @param failure what went wrong
	 */
	default void onFailure(String generator, RuntimeException failure) {
	}

}
