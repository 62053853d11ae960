package io.rediskit.autoconfigure.bloom;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.rediskit.bloom.BloomFilter;
import io.rediskit.bloom.BloomFilterInfo;
import io.rediskit.bloom.BloomFilterRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;

/**
 * Gauges of each configured Bloom filter, read with {@link io.rediskit.bloom.BloomFilter#info()} and
 * {@link io.rediskit.bloom.BloomFilter#isComplete()} at most once per 10 seconds per filter (a scrape costs no more than that), {@code NaN} while Redis cannot answer:
 * <ul>
 * <li>{@code rediskit.bloom.fill} ({@code filter}): bits set / bits.</li>
 * <li>{@code rediskit.bloom.estimated.fpp} ({@code filter}): the false-positive rate at the current fill.</li>
 * <li>{@code rediskit.bloom.over.capacity} ({@code filter}): 1 while the filter holds more items than it is
 * sized for, else 0.</li>
 * <li>{@code rediskit.bloom.complete} ({@code filter}): 1 while the filter is complete (seeded with every item, not
 * lost since), so that its "never seen" is trusted; 0 while it is not, and the loaders it guards run.</li>
 * </ul>
 */
public class BloomFilterMetrics implements MeterBinder {

	private static final Duration REFRESH = Duration.ofSeconds(10);

	private final ObjectProvider<BloomFilterRegistry> filters;

	private final ObjectProvider<BloomProperties> properties;

	private final Map<String, Sample> samples = new ConcurrentHashMap<>();

	/**
	 * @param filters the registry; none, no gauges
	 * @param properties the configured filters, which get gauges
	 */
	public BloomFilterMetrics(ObjectProvider<BloomFilterRegistry> filters, ObjectProvider<BloomProperties> properties) {
		this.filters = filters;
		this.properties = properties;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		BloomProperties configured = this.properties.getIfAvailable();
		if (configured == null || this.filters.getIfAvailable() == null) {
			return;
		}
		for (String name : configured.getFilters().keySet()) {
			gauge(registry, name, "rediskit.bloom.fill", "Bits set over the Bloom filter's bits", BloomFilterInfo::fillRatio);
			gauge(registry, name, "rediskit.bloom.estimated.fpp", "Estimated false-positive rate at the current fill",
					BloomFilterInfo::estimatedFalsePositiveRate);
			gauge(registry, name, "rediskit.bloom.over.capacity",
					"1 while the Bloom filter holds more items than it is sized for",
					(info) -> info.overCapacity() ? 1 : 0);
			Gauge.builder("rediskit.bloom.complete", this, (metrics) -> {
				Boolean complete = metrics.sample(name).complete();
				return (complete != null) ? (complete ? 1 : 0) : Double.NaN;
			})
				.description("1 while the Bloom filter is complete: its \"never seen\" is trusted")
				.tag("filter", name)
				.register(registry);
		}
	}

	private void gauge(MeterRegistry registry, String name, String meter, String description,
			ToDoubleFunction<BloomFilterInfo> value) {
		Gauge.builder(meter, this, (metrics) -> {
			BloomFilterInfo info = metrics.sample(name).info();
			return (info != null) ? value.applyAsDouble(info) : Double.NaN;
		}).description(description).tag("filter", name).register(registry);
	}

	private Sample sample(String name) {
		long now = System.nanoTime();
		Sample sample = this.samples.get(name);
		if (sample != null && now - sample.takenAt < REFRESH.toNanos()) {
			return sample;
		}
		BloomFilterInfo info;
		Boolean complete;
		try {
			BloomFilter filter = this.filters.getObject().get(name);
			info = filter.info();
			complete = filter.isComplete();
		}
		catch (RuntimeException ex) {
			info = null;
			complete = null;
		}
		Sample taken = new Sample(info, complete, now);
		this.samples.put(name, taken);
		return taken;
	}

	private record Sample(@Nullable BloomFilterInfo info, @Nullable Boolean complete, long takenAt) {
	}

}
