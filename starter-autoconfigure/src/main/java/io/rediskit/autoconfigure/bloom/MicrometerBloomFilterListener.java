package io.rediskit.autoconfigure.bloom;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rediskit.bloom.BloomFilterListener;
import io.rediskit.bloom.BloomOperation;

/**
 * Records Bloom filter calls as Micrometer meters; the {@code filter} tag is the configured name, never an item.
 * <ul>
 * <li>{@code rediskit.bloom.operations} (counter; {@code filter}, {@code operation} = add | contains,
 * {@code result} = new | existing for adds, positive | negative for lookups): items, by outcome. Calls that
 * failed are counted under the same name with {@code result} = error, from their observations
 * ({@code MicrometerOperationMeters}).</li>
 * </ul>
 * The gauges {@code rediskit.bloom.fill}, {@code rediskit.bloom.estimated.fpp} and
 * {@code rediskit.bloom.over.capacity} are registered by {@link BloomFilterMetrics}.
 */
public class MicrometerBloomFilterListener implements BloomFilterListener {

	private final MeterRegistry registry;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 */
	public MicrometerBloomFilterListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onItems(String filterName, BloomOperation operation, int items, int hits) {
		boolean add = operation == BloomOperation.ADD;
		counter(filterName, operation, add ? "new" : "positive").increment(hits);
		counter(filterName, operation, add ? "existing" : "negative").increment(items - hits);
	}

	private Counter counter(String filterName, BloomOperation operation, String result) {
		return this.counters.computeIfAbsent(filterName + '\u0000' + operation.tag() + '\u0000' + result,
				(key) -> Counter.builder("rediskit.bloom.operations")
					.description("Items added to or looked up in a Bloom filter, by result")
					.tag("filter", filterName)
					.tag("operation", operation.tag())
					.tag("result", result)
					.register(this.registry));
	}

}
