package io.rediskit.autoconfigure.keys;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.rediskit.keys.BigKeyReport;
import io.rediskit.keys.KeyInfo;
import io.rediskit.keys.KeyToolsListener;

/**
 * Records the key tools' work as Micrometer meters; tags are bounded (Redis types and operation names, never a
 * key).
 * <ul>
 * <li>{@code rediskit.keys.largest.bytes} (gauge; {@code type}): the {@code MEMORY USAGE} of the largest key of
 * each type in the last big-key report.</li>
 * <li>{@code rediskit.keys.largest.elements} (gauge; {@code type}): the element count of the key of each type
 * with the most elements in the last report.</li>
 * <li>{@code rediskit.keys.deleted} (counter; {@code operation} = delete-key | delete-pattern): keys deleted.</li>
 * <li>{@code rediskit.keys.deleted.elements} (counter): elements removed in batches from big keys.</li>
 * </ul>
 */
public class MicrometerKeyToolsListener implements KeyToolsListener {

	private final MeterRegistry registry;

	private final Map<String, AtomicLong> largestBytes = new ConcurrentHashMap<>();

	private final Map<String, AtomicLong> largestElements = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 */
	public MicrometerKeyToolsListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onBigKeyReport(BigKeyReport report) {
		Map<String, Long> bytes = new java.util.HashMap<>();
		for (Map.Entry<String, List<KeyInfo>> entry : report.largestByElements().entrySet()) {
			gauge(this.largestElements, "rediskit.keys.largest.elements", "Element count of the largest key of a type",
					entry.getKey()).set(entry.getValue().isEmpty() ? 0 : entry.getValue().get(0).elements());
			bytes.put(entry.getKey(), entry.getValue().stream().mapToLong(KeyInfo::memoryBytes).max().orElse(0));
		}
		for (KeyInfo info : report.largestByMemory()) {
			bytes.merge(info.type(), info.memoryBytes(), Math::max);
		}
		bytes.forEach((type, value) -> gauge(this.largestBytes, "rediskit.keys.largest.bytes",
				"Memory usage of the largest key of a type, in bytes", type).set(value));
	}

	private AtomicLong gauge(Map<String, AtomicLong> gauges, String name, String description, String type) {
		return gauges.computeIfAbsent(type, (key) -> {
			AtomicLong value = new AtomicLong();
			Gauge.builder(name, value, AtomicLong::get).description(description).tag("type", type).register(this.registry);
			return value;
		});
	}

	@Override
	public void onDeleted(String operation, long keys, long elements) {
		if (keys > 0) {
			Counter.builder("rediskit.keys.deleted").description("Keys deleted by the key tools")
				.tag("operation", operation).register(this.registry).increment(keys);
		}
		if (elements > 0) {
			Counter.builder("rediskit.keys.deleted.elements").description("Elements removed in batches from big keys")
				.register(this.registry).increment(elements);
		}
	}

}
