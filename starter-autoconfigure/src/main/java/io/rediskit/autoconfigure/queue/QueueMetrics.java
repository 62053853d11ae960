package io.rediskit.autoconfigure.queue;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueStats;
import org.jspecify.annotations.Nullable;

/**
 * Gauges of every configured queue: {@code rediskit.queue.messages} ({@code queue}, {@code state} = delayed |
 * ready | in-flight | dead) and {@code rediskit.queue.oldest.due.age} (seconds the oldest ready message has been
 * due), and {@code rediskit.queue.paused} (1 while the queue is paused for every listener, else 0). One stats script
 * per queue feeds them all, and one more call the paused gauge, each at most once per {@value #CACHE_SECONDS}
 * seconds however often they are scraped; while Redis is unreachable they read {@code NaN}.
 */
public class QueueMetrics implements MeterBinder {

	static final long CACHE_SECONDS = 5;

	private final Supplier<QueueRegistry> registry;

	private final Iterable<String> queues;

	private final Map<String, Cached> cache = new ConcurrentHashMap<>();

	private final Map<String, CachedPause> pauses = new ConcurrentHashMap<>();

	/**
	 * @param registry the queues, asked for on the first reading
	 * @param queues the names to report on
	 */
	public QueueMetrics(Supplier<QueueRegistry> registry, Iterable<String> queues) {
		this.registry = registry;
		this.queues = queues;
	}

	@Override
	public void bindTo(MeterRegistry meters) {
		for (String queue : this.queues) {
			gauge(meters, queue, "delayed", QueueStats::delayed);
			gauge(meters, queue, "ready", QueueStats::ready);
			gauge(meters, queue, "in-flight", QueueStats::inFlight);
			gauge(meters, queue, "dead", QueueStats::dead);
			Gauge.builder("rediskit.queue.oldest.due.age", this, (self) -> self.read(queue,
					(stats) -> stats.oldestDueAge().toMillis() / 1000.0))
				.description("How long the oldest ready message has been due")
				.baseUnit("seconds")
				.tag("queue", queue)
				.register(meters);
			Gauge.builder("rediskit.queue.paused", this, (self) -> self.paused(queue))
				.description("1 while the queue is paused on every instance, else 0")
				.tag("queue", queue)
				.register(meters);
		}
	}

	private double paused(String queue) {
		long now = System.nanoTime();
		CachedPause cached = this.pauses.get(queue);
		if (cached != null && now - cached.readAt < Duration.ofSeconds(CACHE_SECONDS).toNanos()) {
			return cached.value;
		}
		double value;
		try {
			value = this.registry.get().get(queue, Object.class).isPaused() ? 1 : 0;
		}
		catch (RuntimeException ex) {
			value = Double.NaN;
		}
		this.pauses.put(queue, new CachedPause(value, now));
		return value;
	}

	private void gauge(MeterRegistry meters, String queue, String state, ToDoubleFunction<QueueStats> count) {
		Gauge.builder("rediskit.queue.messages", this, (self) -> self.read(queue, count))
			.description("Messages by state")
			.tag("queue", queue)
			.tag("state", state)
			.register(meters);
	}

	private double read(String queue, ToDoubleFunction<QueueStats> value) {
		QueueStats stats = stats(queue);
		return (stats != null) ? value.applyAsDouble(stats) : Double.NaN;
	}

	private @Nullable QueueStats stats(String queue) {
		long now = System.nanoTime();
		Cached cached = this.cache.get(queue);
		if (cached != null && now - cached.readAt < Duration.ofSeconds(CACHE_SECONDS).toNanos()) {
			return cached.stats;
		}
		QueueStats stats;
		try {
			stats = this.registry.get().get(queue, Object.class).stats();
		}
		catch (RuntimeException ex) {
			stats = null;
		}
		this.cache.put(queue, new Cached(stats, now));
		return stats;
	}

	private record Cached(@Nullable QueueStats stats, long readAt) {
	}

	private record CachedPause(double value, long readAt) {
	}

}
