package io.rediskit.autoconfigure.console;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.rediskit.support.Background;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * The console's short memory of the {@code rediskit.*} meters: each sample turns counters into rates per second
 * since the sample before (with their running total), reads gauges as they are, and turns a timer into its rate
 * and mean since the sample before and its p50, p95 and p99: those it computes itself when configured to
 * ({@code management.metrics.distribution.percentiles.rediskit.queue.lateness=0.5,0.95,0.99}), else from its
 * histogram when the registry keeps one (such as {@code rediskit.queue.lateness} in Prometheus'), over the
 * histogram's own window (Micrometer's {@code distributionStatisticExpiry}, two minutes by default, for
 * registries that keep windowed histograms; since start for cumulative ones such as Prometheus'). The last
 * {@code samples} samples of each meter are kept, so memory is bounded by the meters' (bounded) tags.
 * <p>
 * Samples are taken every interval on the shared {@link Background}'s scheduler (the application's
 * {@code TaskScheduler} when it has exactly one, else the one daemon thread the background keeps for every
 * primitive) while the context runs; until it starts, or without a background, when the console asks and the last
 * sample is at least an interval old. No thread of its own.
 */
final class ConsoleMetrics implements SmartLifecycle {

	static final String PREFIX = "rediskit.";

	private static final double[] PERCENTILES = { 0.50, 0.95, 0.99 };

	private final MeterRegistry registry;

	private final Duration interval;

	private final int capacity;

	private final @Nullable Background background;

	private final LongSupplier clock;

	private final Map<Meter.Id, Series> series = new HashMap<>();

	private long lastSample = Long.MIN_VALUE;

	private volatile @Nullable ScheduledFuture<?> task;

	ConsoleMetrics(MeterRegistry registry, Duration interval, int capacity, @Nullable Background background) {
		this(registry, interval, capacity, background, System::currentTimeMillis);
	}

	ConsoleMetrics(MeterRegistry registry, Duration interval, int capacity, @Nullable Background background,
			LongSupplier clock) {
		this.registry = registry;
		this.interval = interval;
		this.capacity = capacity;
		this.background = background;
		this.clock = clock;
	}

	/** Takes a sample of every redis-kit meter now. */
	synchronized void sample() {
		long now = this.clock.getAsLong();
		double seconds = (this.lastSample == Long.MIN_VALUE) ? 0 : (now - this.lastSample) / 1000.0;
		this.lastSample = now;
		Set<Meter.Id> seen = new HashSet<>();
		for (Meter meter : this.registry.getMeters()) {
			if (!meter.getId().getName().startsWith(PREFIX)) {
				continue;
			}
			Series one = this.series.computeIfAbsent(meter.getId(), (id) -> new Series(id, this.capacity));
			if (one.record(meter, now, seconds)) {
				seen.add(meter.getId());
			}
		}
		// A meter removed from the registry (its primitive closed) is dropped with it.
		this.series.keySet().retainAll(seen);
	}

	/** Takes a sample if none was taken for most of an interval: the path while no task samples. */
	synchronized void sampleIfDue() {
		long now = this.clock.getAsLong();
		if (this.lastSample == Long.MIN_VALUE || now - this.lastSample >= this.interval.toMillis() * 9 / 10) {
			sample();
		}
	}

	/**
	 * @param prefix the start of the meter names wanted, such as {@code rediskit.queue.}
	 * @return each matching meter's name, tags, kind and samples, oldest first
	 */
	synchronized List<Map<String, Object>> series(String prefix) {
		if (this.task == null) {
			sampleIfDue();
		}
		List<Map<String, Object>> found = new ArrayList<>();
		for (Series one : this.series.values()) {
			if (one.id.getName().startsWith(prefix)) {
				found.add(one.describe());
			}
		}
		found.sort((a, b) -> (a.get("name") + " " + a.get("tags")).compareTo(b.get("name") + " " + b.get("tags")));
		return found;
	}

	Duration interval() {
		return this.interval;
	}

	@Override
	public void start() {
		if (this.background != null && this.task == null) {
			this.task = this.background.scheduleAtFixedRate(this::sample, Duration.ZERO, this.interval);
		}
	}

	@Override
	public void stop() {
		ScheduledFuture<?> running = this.task;
		if (running != null) {
			running.cancel(false);
			this.task = null;
		}
	}

	@Override
	public boolean isRunning() {
		return this.task != null;
	}

	/** One meter's ring of samples and the cumulative figures of the sample before, to take differences from. */
	private static final class Series {

		private final Meter.Id id;

		private final int capacity;

		private final ArrayDeque<Map<String, Object>> samples = new ArrayDeque<>();

		private String kind = "other";

		private double lastCount = Double.NaN;

		private double lastTotalMillis;

		Series(Meter.Id id, int capacity) {
			this.id = id;
			this.capacity = capacity;
		}

		boolean record(Meter meter, long now, double seconds) {
			Map<String, Object> sample = new LinkedHashMap<>();
			sample.put("t", now);
			if (meter instanceof Counter counter) {
				rate("counter", counter.count(), seconds, sample);
			}
			else if (meter instanceof FunctionCounter counter) {
				rate("counter", counter.count(), seconds, sample);
			}
			else if (meter instanceof TimeGauge gauge) {
				this.kind = "gauge";
				sample.put("value", finite(gauge.value(TimeUnit.MILLISECONDS)));
			}
			else if (meter instanceof Gauge gauge) {
				this.kind = "gauge";
				sample.put("value", finite(gauge.value()));
			}
			else if (meter instanceof Timer timer) {
				timed(timer.count(), timer.totalTime(TimeUnit.MILLISECONDS), timer.takeSnapshot(), seconds, sample);
			}
			else if (meter instanceof FunctionTimer timer) {
				timed(timer.count(), timer.totalTime(TimeUnit.MILLISECONDS), null, seconds, sample);
			}
			else if (meter instanceof DistributionSummary summary) {
				timed(summary.count(), summary.totalAmount(), null, seconds, sample);
			}
			else if (meter instanceof LongTaskTimer timer) {
				this.kind = "gauge";
				sample.put("value", (double) timer.activeTasks());
			}
			else {
				return false;
			}
			if (this.samples.size() == this.capacity) {
				this.samples.removeFirst();
			}
			this.samples.addLast(sample);
			return true;
		}

		private void rate(String kind, double count, double seconds, Map<String, Object> sample) {
			this.kind = kind;
			sample.put("rate", (Double.isNaN(this.lastCount) || seconds <= 0) ? null
					: Math.max(0, count - this.lastCount) / seconds);
			sample.put("total", count);
			this.lastCount = count;
		}

		private void timed(double count, double totalMillis, @Nullable HistogramSnapshot snapshot, double seconds,
				Map<String, Object> sample) {
			double previousCount = this.lastCount;
			rate("timer", count, seconds, sample);
			double delta = Double.isNaN(previousCount) ? count : count - previousCount;
			double deltaMillis = Double.isNaN(previousCount) ? totalMillis : totalMillis - this.lastTotalMillis;
			this.lastTotalMillis = totalMillis;
			sample.put("mean", (delta > 0) ? deltaMillis / delta : null);
			if (snapshot == null) {
				return;
			}
			for (double p : PERCENTILES) {
				Double value = published(snapshot.percentileValues(), p);
				if (value == null && snapshot.histogramCounts().length > 0) {
					value = percentile(snapshot.histogramCounts(), p);
				}
				sample.put("p" + Math.round(p * 100), value);
			}
		}

		/** The percentile the timer computes itself (publishPercentiles), in milliseconds, if it does. */
		private static @Nullable Double published(ValueAtPercentile[] values, double p) {
			for (ValueAtPercentile value : values) {
				if (Math.abs(value.percentile() - p) < 1e-9) {
					return value.value(TimeUnit.MILLISECONDS);
				}
			}
			return null;
		}

		/**
		 * The upper bound of the first bucket holding the p-quantile of the histogram's values (its buckets count
		 * the values up to their bound); {@code null} when it holds none. Windowed histograms are not differenced:
		 * a window that rotated between two samples would give negative counts.
		 */
		private static @Nullable Double percentile(CountAtBucket[] buckets, double p) {
			double total = buckets[buckets.length - 1].count();
			if (total <= 0) {
				return null;
			}
			double target = Math.ceil(p * total);
			for (CountAtBucket bucket : buckets) {
				if (bucket.count() >= target) {
					return bucket.bucket(TimeUnit.MILLISECONDS);
				}
			}
			return null;
		}

		private static @Nullable Double finite(double value) {
			return Double.isFinite(value) ? value : null;
		}

		Map<String, Object> describe() {
			Map<String, String> tags = new TreeMap<>();
			for (Tag tag : this.id.getTags()) {
				tags.put(tag.getKey(), tag.getValue());
			}
			Map<String, Object> described = new LinkedHashMap<>();
			described.put("name", this.id.getName());
			described.put("tags", tags);
			described.put("kind", this.kind);
			described.put("samples", List.copyOf(this.samples));
			return described;
		}

	}

}
