package io.rediskit.autoconfigure.outage;

import java.util.concurrent.TimeUnit;

import io.rediskit.support.RedisAvailability;

import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/** For tests that pause Redis and then expect service: calls are refused until Redis answers the probe's PING. */
public final class AvailabilityTesting {

	private AvailabilityTesting() {
	}

	/**
	 * Waits, at most 10 s, until the context's {@link RedisAvailability} lets calls through again.
	 * @param context the application
	 * @throws InterruptedException if interrupted while waiting
	 */
	public static void awaitAvailable(ApplicationContext context) throws InterruptedException {
		RedisAvailability availability = context.getBean(RedisAvailability.class);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!availability.isAvailable() && System.nanoTime() - deadline < 0) {
			TimeUnit.MILLISECONDS.sleep(10);
		}
		assertThat(availability.isAvailable()).as("Redis answered the availability probe").isTrue();
	}

}
