package io.rediskit.support;

import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * How the sync API of every primitive waits for its async path: the stage's own failure is thrown as it is (a
 * {@code RedisKitException}, an {@code IllegalArgumentException}), not wrapped in a {@link CompletionException}.
 * Internal to redis-kit's primitives.
 */
public final class Stages {

	private Stages() {
	}

	/**
	 * Waits for a stage. Every stage of redis-kit completes within the driver's command timeout, so the wait is
	 * bounded by it.
	 * @param <T> the stage's value type
	 * @param stage the stage to wait for
	 * @return its value
	 * @throws RuntimeException what the stage failed with, unwrapped
	 */
	public static <T> T join(CompletionStage<T> stage) {
		try {
			return stage.toCompletableFuture().join();
		}
		catch (CompletionException ex) {
			Throwable cause = unwrap(ex);
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw ex;
		}
	}

	/**
	 * @param failure what a stage failed with, as seen by a dependent stage
	 * @return the failure without its {@link CompletionException} wrappers
	 */
	public static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while (cause instanceof CompletionException && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

}
