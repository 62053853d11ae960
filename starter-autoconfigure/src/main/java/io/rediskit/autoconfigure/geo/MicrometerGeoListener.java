package io.rediskit.autoconfigure.geo;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rediskit.geo.GeoListener;
import org.jspecify.annotations.Nullable;

/**
 * Records geo index operations as Micrometer meters. The {@code index} tag is the index's configured name, never
 * a member or region, so cardinality stays bounded: at most 14 timers and one counter per index.
 * <ul>
 * <li>{@code rediskit.geo.operations} (timer; {@code index}, {@code operation} = put | put-all | remove |
 * position | distance | nearby | sweep, {@code outcome} = success | failure): each operation's latency, the
 * Redis round trips included.</li>
 * <li>{@code rediskit.geo.expired} (counter; {@code index}): expired members removed by sweeps.</li>
 * </ul>
 */
public class MicrometerGeoListener implements GeoListener {

	private final MeterRegistry registry;

	private final Map<String, Timer> timers = new ConcurrentHashMap<>();

	private final Map<String, Counter> expired = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 */
	public MicrometerGeoListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onOperation(String indexName, String operation, Duration latency, @Nullable Throwable failure) {
		String outcome = (failure == null) ? "success" : "failure";
		this.timers.computeIfAbsent(indexName + '\n' + operation + '\n' + outcome, (key) -> Timer
			.builder("rediskit.geo.operations")
			.description("Geo index operations, by operation and outcome")
			.tag("index", indexName)
			.tag("operation", operation)
			.tag("outcome", outcome)
			.register(this.registry)).record(latency);
	}

	@Override
	public void onExpiredRemoved(String indexName, long count) {
		this.expired.computeIfAbsent(indexName, (key) -> Counter.builder("rediskit.geo.expired")
			.description("Expired geo index members removed by sweeps")
			.tag("index", indexName)
			.register(this.registry)).increment(count);
	}

}
