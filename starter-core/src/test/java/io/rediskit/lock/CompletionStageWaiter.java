package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.fail;

/** Checks that a wait has not ended: the future must time out, not complete. */
public final class CompletionStageWaiter {

	private CompletionStageWaiter() {
	}

	/** Fails if the future completes within {@code time}. */
	public static void notDoneWithin(CompletableFuture<?> future, Duration time) throws Exception {
		try {
			future.get(time.toNanos(), TimeUnit.NANOSECONDS);
			fail("completed too early: " + future);
		}
		catch (TimeoutException expected) {
			// Still waiting, as it should.
		}
	}

}
