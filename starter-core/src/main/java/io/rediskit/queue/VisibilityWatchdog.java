package io.rediskit.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Supplier;

import io.rediskit.support.Stages;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.TaskScheduler;

/**
 * The visibility watchdog of a {@link QueueListenerContainer}: every third of the visibility timeout, one script
 * call extends the visibility of every delivery the container holds (waiting, running, or being acked), so that
 * neither a long handler nor a message waiting for a free handler is redelivered. A consumer that dies stops
 * extending, and its messages come back after the timeout. A task on the {@link TaskScheduler} that never blocks
 * it: the extension completes asynchronously.
 */
final class VisibilityWatchdog<T> {

	private static final Log logger = LogFactory.getLog(VisibilityWatchdog.class);

	private final ScriptedRedisQueue<T> queue;

	private final Supplier<List<Delivery<T>>> held;

	private final ThrottledLog failures;

	private @Nullable ScheduledFuture<?> task;

	VisibilityWatchdog(ScriptedRedisQueue<T> queue, Supplier<List<Delivery<T>>> held, ThrottledLog failures) {
		this.queue = queue;
		this.held = held;
		this.failures = failures;
	}

	void start(TaskScheduler scheduler) {
		Duration period = Duration.ofMillis(Math.max(1, this.queue.spec().visibilityTimeout().toMillis() / 3));
		this.task = scheduler.scheduleWithFixedDelay(this::extend, Instant.now().plus(period), period);
	}

	void stop() {
		ScheduledFuture<?> current = this.task;
		if (current != null) {
			current.cancel(false);
			this.task = null;
		}
	}

	private void extend() {
		List<Delivery<T>> deliveries = this.held.get();
		if (deliveries.isEmpty()) {
			return;
		}
		List<String[]> pairs = new ArrayList<>(deliveries.size());
		for (Delivery<T> delivery : deliveries) {
			pairs.add(new String[] { delivery.id(), delivery.token() });
		}
		try {
			this.queue.parts().scripts
				.extend(this.queue.keys(), pairs, this.queue.spec().visibilityTimeout().toMillis(), null)
				.whenComplete((extended, failure) -> {
					if (failure != null) {
						this.failures.warn(Stages.unwrap(failure), "visibility not extended this time");
						return;
					}
					for (int i = 0; i < extended.length; i++) {
						Delivery<T> lost = deliveries.get(i);
						if (!extended[i] && !lost.isSettled()) {
							this.queue.parts().listeners.notify((l) -> l.onStale(this.queue.name(), "extend"));
							logger.warn("Lost the visibility of " + lost
									+ ": it was taken back and may be delivered again");
						}
					}
				});
		}
		catch (RuntimeException ex) {
			this.failures.warn(ex, "visibility not extended this time");
		}
	}

}
