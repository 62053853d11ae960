package io.rediskit.autoconfigure.queue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.rediskit.autoconfigure.support.Durations;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueStats;
import io.rediskit.queue.RedisQueue;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the configured queues: each queue's stats are a detail, and a queue whose oldest due message has waited
 * longer than {@code redis-kit.queue.health.max-oldest-due-age} (its consumers are missing or too slow) is named
 * in the detail {@code late}; a paused queue is never late. A backlog leaves the status UP unless
 * {@code redis-kit.queue.health.late-status} names another (such as {@code DOWN}): an instance that only enqueues
 * must not leave its load balancer because consumers elsewhere are slow. Redis unreachable is DOWN with the
 * failure.
 */
public class QueueHealthIndicator extends AbstractHealthIndicator {

	private final QueueRegistry registry;

	private final Iterable<String> queues;

	private final Duration maxOldestDueAge;

	private final Status lateStatus;

	/**
	 * @param registry the queues
	 * @param queues the names to check
	 * @param maxOldestDueAge the age above which a queue is late
	 * @param lateStatus the status while a queue is late
	 */
	public QueueHealthIndicator(QueueRegistry registry, Iterable<String> queues, Duration maxOldestDueAge,
			Status lateStatus) {
		super("Queue health check failed");
		this.registry = registry;
		this.queues = queues;
		this.maxOldestDueAge = maxOldestDueAge;
		this.lateStatus = lateStatus;
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
				late.put(queue, "oldest due message waited " + Durations.format(stats.oldestDueAge().withNanos(0))
						+ ", more than " + Durations.format(this.maxOldestDueAge));
			}
		}
		if (late.isEmpty()) {
			builder.up();
		}
		else {
			builder.status(this.lateStatus).withDetail("late", late);
		}
	}

}
