package io.rediskit.autoconfigure.queue;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rediskit.queue.EnqueueResult;
import io.rediskit.queue.QueueBatch;
import io.rediskit.queue.QueueEventListener;
import io.rediskit.queue.QueueFlow;

/**
 * Records queue events as Micrometer meters, tagged with the configured queue name ({@code queue}), never with
 * message ids or reasons, so cardinality stays bounded.
 * <ul>
 * <li>{@code rediskit.queue.enqueued}, {@code .delivered}, {@code .acked}, {@code .retried},
 * {@code .dead.lettered}, {@code .stale} (counters): messages added, deliveries, acknowledgements, failed
 * deliveries waiting for a retry, messages sent to the dead-letter queue, settling calls refused as stale.</li>
 * <li>{@code rediskit.queue.lateness} (timer): the server's time at a first delivery minus the due time, the
 * figure a delay queue exists for.</li>
 * <li>{@code rediskit.queue.processing} (timer): time from delivery to acknowledgement.</li>
 * <li>{@code rediskit.queue.cancelled}, {@code .expired} (counters): messages cancelled (removed before delivery,
 * or dead-lettered as cancelled after a cancel in flight) and messages dead-lettered for their time to live; both
 * are counted in {@code .dead.lettered} too when they reach the dead letters.</li>
 * <li>{@code rediskit.queue.settle.failures} (counter; {@code queue}, {@code operation} = ack | retry): handlers'
 * outcomes that could not reach Redis; those messages come back after their visibility timeout.</li>
 * <li>{@code rediskit.queue.enqueues} (counter; {@code queue}, {@code outcome} = enqueued | duplicate | replaced):
 * every enqueue by what it did under the queue's deduplication: a message added, a duplicate dropped, a waiting
 * message replaced (debounce).</li>
 * <li>{@code rediskit.queue.held.back} (counter; {@code queue}, {@code reason} = rate-limit | max-in-flight): ready
 * messages a claim could have taken and left in the queue because of the queue's limit (a message held back over
 * several claims counts at each).</li>
 * <li>{@code rediskit.queue.workflows} (counter; {@code queue}, {@code kind} = flow | batch): flows and batches
 * added (their messages count in {@code .enqueued} too).</li>
 * <li>{@code rediskit.queue.workflow.events} (counter; {@code queue}, {@code kind} = flow | batch, {@code event} =
 * all-finished | continued | failed for a flow's parent released, death | complete | success for a batch): what the
 * end of a child or a member did to its flow or batch, counted by the instance whose settling did it (at most once:
 * an event whose reply was lost is not counted).</li>
 * </ul>
 * The gauges of messages by state and of paused queues are {@link QueueMetrics}'.
 */
public class MicrometerQueueListener implements QueueEventListener {

	private final MeterRegistry registry;

	private final Map<String, QueueMeters> meters = new ConcurrentHashMap<>();

	private final Map<String, Counter> settleFailures = new ConcurrentHashMap<>();

	private final Map<String, Counter> heldBack = new ConcurrentHashMap<>();

	private final Map<String, Counter> enqueues = new ConcurrentHashMap<>();

	private final Map<String, Counter> workflows = new ConcurrentHashMap<>();

	private final Map<String, Counter> workflowEvents = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 */
	public MicrometerQueueListener(MeterRegistry registry) {
		this.registry = registry;
	}

	private QueueMeters meters(String queue) {
		return this.meters.computeIfAbsent(queue, QueueMeters::new);
	}

	@Override
	public void onEnqueued(String queue, int count) {
		meters(queue).enqueued.increment(count);
		enqueues(queue, EnqueueResult.Outcome.ENQUEUED).increment(count);
	}

	@Override
	public void onDeduplicated(String queue, EnqueueResult.Outcome outcome, int count) {
		enqueues(queue, outcome).increment(count);
	}

	private Counter enqueues(String queue, EnqueueResult.Outcome outcome) {
		return this.enqueues.computeIfAbsent(queue + '\0' + outcome.value(), (key) -> Counter
			.builder("rediskit.queue.enqueues")
			.description("Enqueues by what they did under the queue's deduplication")
			.tag("queue", queue)
			.tag("outcome", outcome.value())
			.register(this.registry));
	}

	@Override
	public void onFlowEnqueued(String queue, int children) {
		workflows(queue, "flow").increment();
	}

	@Override
	public void onBatchEnqueued(String queue, int members) {
		workflows(queue, "batch").increment();
	}

	private Counter workflows(String queue, String kind) {
		return this.workflows.computeIfAbsent(queue + '\0' + kind, (key) -> Counter.builder("rediskit.queue.workflows")
			.description("Flows and batches added to the queue")
			.tag("queue", queue)
			.tag("kind", kind)
			.register(this.registry));
	}

	@Override
	public void onFlowParentReleased(String queue, QueueFlow.ParentRelease release) {
		workflowEvents(queue, "flow", release.value()).increment();
	}

	@Override
	public void onBatchEvent(String queue, QueueBatch.Event event) {
		workflowEvents(queue, "batch", event.value()).increment();
	}

	private Counter workflowEvents(String queue, String kind, String event) {
		return this.workflowEvents.computeIfAbsent(queue + '\0' + kind + '\0' + event, (key) -> Counter
			.builder("rediskit.queue.workflow.events")
			.description("Flows' parents released and batches' states reached, by the settling that did it")
			.tag("queue", queue)
			.tag("kind", kind)
			.tag("event", event)
			.register(this.registry));
	}

	@Override
	public void onDelivered(String queue, int deliveries, Duration lateness) {
		QueueMeters meters = meters(queue);
		meters.delivered.increment();
		if (deliveries == 1) {
			meters.lateness.record(lateness);
		}
	}

	@Override
	public void onAcked(String queue, Duration processing) {
		QueueMeters meters = meters(queue);
		meters.acked.increment();
		meters.processing.record(processing);
	}

	@Override
	public void onRetried(String queue, Duration delay) {
		meters(queue).retried.increment();
	}

	@Override
	public void onDeadLettered(String queue, String reason) {
		meters(queue).deadLettered.increment();
	}

	@Override
	public void onCancelled(String queue) {
		meters(queue).cancelled.increment();
	}

	@Override
	public void onExpired(String queue) {
		meters(queue).expired.increment();
	}

	@Override
	public void onStale(String queue, String operation) {
		meters(queue).stale.increment();
	}

	@Override
	public void onSettleFailed(String queue, String operation) {
		this.settleFailures.computeIfAbsent(queue + '\0' + operation, (key) -> Counter
			.builder("rediskit.queue.settle.failures")
			.description("Handler outcomes (ack, retry) that could not reach Redis; the message comes back later")
			.tag("queue", queue)
			.tag("operation", operation)
			.register(this.registry)).increment();
	}

	@Override
	public void onHeldBack(String queue, String reason, long count) {
		this.heldBack.computeIfAbsent(queue + '\0' + reason, (key) -> Counter.builder("rediskit.queue.held.back")
			.description("Ready messages a claim left in the queue because of the queue's rate or in-flight limit")
			.tag("queue", queue)
			.tag("reason", reason)
			.register(this.registry)).increment(count);
	}

	private final class QueueMeters {

		final Counter enqueued;

		final Counter delivered;

		final Counter acked;

		final Counter retried;

		final Counter deadLettered;

		final Counter stale;

		final Counter cancelled;

		final Counter expired;

		final Timer lateness;

		final Timer processing;

		QueueMeters(String queue) {
			this.enqueued = counter("enqueued", queue, "Messages added to the queue");
			this.delivered = counter("delivered", queue, "Deliveries to consumers");
			this.acked = counter("acked", queue, "Deliveries acknowledged");
			this.retried = counter("retried", queue, "Failed deliveries waiting for another");
			this.deadLettered = counter("dead.lettered", queue, "Messages sent to the dead-letter queue");
			this.stale = counter("stale", queue, "Settling calls refused because the delivery was stale");
			this.cancelled = counter("cancelled", queue, "Messages cancelled, before or during their delivery");
			this.expired = counter("expired", queue, "Messages dead-lettered for their time to live");
			this.lateness = Timer.builder("rediskit.queue.lateness")
				.description("Server time at the first delivery minus the due time")
				.tag("queue", queue)
				.publishPercentileHistogram()
				.register(MicrometerQueueListener.this.registry);
			this.processing = Timer.builder("rediskit.queue.processing")
				.description("Time from delivery to acknowledgement")
				.tag("queue", queue)
				.register(MicrometerQueueListener.this.registry);
		}

		private Counter counter(String name, String queue, String description) {
			return Counter.builder("rediskit.queue." + name)
				.description(description)
				.tag("queue", queue)
				.register(MicrometerQueueListener.this.registry);
		}

	}

}
