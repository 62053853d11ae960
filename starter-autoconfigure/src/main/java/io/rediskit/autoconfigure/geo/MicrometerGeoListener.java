package io.rediskit.autoconfigure.geo;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rediskit.geo.GeoListener;

/**
 * Records what geo index sweeps remove as a Micrometer meter; the {@code index} tag is the index's configured name,
 * never a member or region. The operations' timer, {@code rediskit.geo.operations}, comes from their observations
 * ({@code MicrometerOperationMeters}).
 * <ul>
 * <li>{@code rediskit.geo.expired} (counter; {@code index}): expired members removed by sweeps.</li>
 * </ul>
 */
public class MicrometerGeoListener implements GeoListener {

	private final MeterRegistry registry;

	private final Map<String, Counter> expired = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 */
	public MicrometerGeoListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onExpiredRemoved(String indexName, long count) {
		this.expired.computeIfAbsent(indexName, (key) -> Counter.builder("rediskit.geo.expired")
			.description("Expired geo index members removed by sweeps")
			.tag("index", indexName)
			.register(this.registry)).increment(count);
	}

}
