package io.rediskit.autoconfigure.lock;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition a later event makes true, with a deadline. */
final class LockTestingAwait {

	private LockTestingAwait() {
	}

	static void until(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Timed out waiting for " + what);
			}
			try {
				Thread.sleep(5);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError("Interrupted waiting for " + what, ex);
			}
		}
	}

}
