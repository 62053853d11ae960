package io.rediskit.autoconfigure.queue;

import java.time.Duration;
import java.time.Instant;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rediskit.queue.RecurringJobListener;

/**
 * Records what recurring jobs do on this instance as Micrometer meters, tagged with the configured job and queue
 * names ({@code job}, {@code queue}):
 * <ul>
 * <li>{@code rediskit.queue.recurring.enqueued} (counter): slots this instance enqueued; summed over instances,
 * one per slot.</li>
 * <li>{@code rediskit.queue.recurring.skipped} (counter): missed slots passed over by the job's policy.</li>
 * <li>{@code rediskit.queue.recurring.lateness} (timer): the server's time at a slot's enqueue minus the slot's
 * time.</li>
 * <li>{@code rediskit.queue.recurring.failures} (counter): calls to Redis that failed; the job tries again within
 * a second.</li>
 * </ul>
 */
public class MicrometerRecurringJobListener implements RecurringJobListener {

	private final MeterRegistry registry;

	/**
	 * @param registry where the meters go
	 */
	public MicrometerRecurringJobListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onSlotEnqueued(String job, String queue, Instant slot, Duration lateness) {
		counter("enqueued", "Slots of a recurring job this instance enqueued", job, queue).increment();
		Timer.builder("rediskit.queue.recurring.lateness")
			.description("Server time at a slot's enqueue minus the slot's time")
			.tags("job", job, "queue", queue)
			.register(this.registry)
			.record(lateness);
	}

	@Override
	public void onSlotsSkipped(String job, String queue, long count) {
		counter("skipped", "Missed slots of a recurring job passed over by its policy", job, queue).increment(count);
	}

	@Override
	public void onScheduleFailed(String job, String queue, Throwable failure) {
		counter("failures", "Calls of a recurring job that could not reach Redis", job, queue).increment();
	}

	private Counter counter(String name, String description, String job, String queue) {
		return Counter.builder("rediskit.queue.recurring." + name)
			.description(description)
			.tags("job", job, "queue", queue)
			.register(this.registry);
	}

}
