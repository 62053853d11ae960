package io.rediskit.testsupport;

import java.time.Duration;
import java.util.Optional;

/**
 * A hard lifetime for a worker JVM that a test starts with {@link ProcessBuilder}: a daemon thread halts the
 * worker ({@code halt(124)}, with a line on standard error) once the lifetime has passed, or as soon as the JVM
 * that started it is gone. A worker stuck in a loop, or left behind by a failed or killed test run, then never
 * outlives the build nor keeps its output pipes open.
 */
public final class WorkerLifetime {

	/** The system property that overrides a worker's lifetime, in milliseconds. */
	public static final String LIFETIME_PROPERTY = "rediskit.worker.lifetime-millis";

	private WorkerLifetime() {
	}

	/**
	 * Starts the guard; call it first in the worker's {@code main}.
	 * @param worker the worker's name, for the line on standard error
	 * @param lifetime the longest the worker may live, unless {@value #LIFETIME_PROPERTY} says otherwise
	 */
	public static void haltWhenOverdueOrOrphaned(String worker, Duration lifetime) {
		long lifetimeMillis = Long.getLong(LIFETIME_PROPERTY, lifetime.toMillis());
		long deadline = System.nanoTime() + Duration.ofMillis(lifetimeMillis).toNanos();
		Optional<ProcessHandle> parent = ProcessHandle.current().parent();
		Thread guard = new Thread(() -> {
			while (true) {
				boolean orphaned = parent.isPresent() && !parent.get().isAlive();
				if (orphaned || System.nanoTime() - deadline >= 0) {
					System.err.println(worker + ": " + (orphaned ? "the test JVM is gone"
							: "hard timeout of " + lifetimeMillis + " ms reached") + ", halting");
					System.err.flush();
					Runtime.getRuntime().halt(124);
				}
				try {
					Thread.sleep(500);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		}, worker + "-guard");
		guard.setDaemon(true);
		guard.start();
	}

}
