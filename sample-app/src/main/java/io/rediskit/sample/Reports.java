package io.rediskit.sample;

import io.rediskit.queue.QueueEntry;
import io.rediskit.queue.QueueListener;
import io.rediskit.queue.QueueMessage;
import io.rediskit.queue.QueuePriority;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.RedisQueue;

import org.springframework.stereotype.Component;

/**
 * The {@code reports} queue: a report named {@code poison} always fails, so after its deliveries (3, with a short
 * backoff in the sample's configuration) it lands in the dead-letter queue with the exception as the reason,
 * while other reports keep flowing. See it with {@code GET /actuator/rediskitqueue/reports}. A report asked for with
 * {@code ?priority=high} is built ahead of the queue's other reports (6 of every 10 deliveries while any wait),
 * one asked for with {@code low} behind them, never starved (see docs/queue.md#priorities).
 */
@Component
public class Reports {

	/** A report to build. */
	public record Report(String name) {
	}

	private final RedisQueue<Report> reports;

	Reports(QueueRegistry queues) {
		this.reports = queues.get("reports", Report.class);
	}

	String request(String name, QueuePriority priority) {
		return this.reports.enqueue(QueueEntry.of(new Report(name)).withPriority(priority));
	}

	@QueueListener(queue = "reports")
	void build(QueueMessage<Report> message) {
		if (message.payload().name().equals("poison")) {
			throw new IllegalStateException("cannot build report 'poison' (delivery " + message.deliveryCount() + ")");
		}
	}

}
