package io.rediskit.autoconfigure.queue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueStats;
import io.rediskit.queue.RedisQueue;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the configured queues: DOWN, naming them, when the oldest due message of any queue has waited
 * longer than {@code redis-kit.queue.health.max-oldest-due-age} (its consumers are missing or too slow); UP
 * otherwise; a paused queue is never late. Each queue's stats are a detail. Redis unreachable is DOWN with the
 * failure.
 */
public class QueueHealthIndicator extends AbstractHealthIndicator {

	private final QueueRegistry registry;

	private final Iterable<String> queues;

	private final Duration maxOldestDueAge;

	/**
	 * @param registry the queues
	 * @param queues the names to check
	 * @param maxOldestDueAge the age above which a queue is unhealthy
	 */
	public QueueHealthIndicator(QueueRegistry registry, Iterable<String> queues, Duration maxOldestDueAge) {
		super("Queue health check failed");
		this.registry = registry;
		this.queues = queues;
		this.maxOldestDueAge = maxOldestDueAge;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		Map<String, String> late = new LinkedHashMap<>();
		for (String queue : this.queues) {
			RedisQueue<Object> handle = this.registry.get(queue, Object.class);
			QueueStats stats = handle.stats();
			boolean paused = handle.isPaused();
			builder.withDetail(queue, RedisQueuesEndpoint.StatsDescriptor.of(stats, paused));
			// A paused queue waits on purpose: an operator paused it, and nothing restarts that would help.
			if (!paused && stats.oldestDueAge().compareTo(this.maxOldestDueAge) > 0) {
				late.put(queue, "oldest due message waited " + stats.oldestDueAge().toSeconds() + "s, more than "
						+ this.maxOldestDueAge.toSeconds() + "s");
			}
		}
		if (late.isEmpty()) {
			builder.up();
		}
		else {
			builder.down().withDetail("late", late);
		}
	}

}
