package io.rediskit.autoconfigure.queue;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** What the queue's auto-configuration tests share: waiting for a condition, and a failure's messages. */
final class QueueTestingAwait {

	private QueueTestingAwait() {
	}

	/** Waits until the condition holds, failing after 30 seconds. */
	static void await(BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime()).as("condition met in time").isLessThan(deadline);
			Thread.sleep(20);
		}
	}

	/** @return the messages of a failure and its causes, one per line */
	static String messages(Throwable failure) {
		StringBuilder messages = new StringBuilder();
		for (Throwable t = failure; t != null; t = t.getCause()) {
			messages.append(t.getMessage()).append('\n');
		}
		return messages.toString();
	}

}
