package io.rediskit.support;

import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

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
	 * Runs a short Redis call that must not fail because the calling thread was interrupted earlier (the
	 * driver fails any wait of an interrupted thread at once); the interrupt flag is restored afterwards.
	 * @param <T> the call's value type
	 * @param call the call, such as a {@link #join} of a command's stage
	 * @return its value
	 */
	public static <T> T uninterruptibly(Supplier<T> call) {
		boolean interrupted = Thread.interrupted();
		try {
			return call.get();
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
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
