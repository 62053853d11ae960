package io.rediskit.autoconfigure.outage;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rediskit.support.RedisAvailability;
import io.rediskit.support.RedisAvailabilityListener;

/**
 * Records what {@link RedisAvailability} sees as Micrometer meters, none of them tagged per call:
 * <ul>
 * <li>{@code rediskit.outage.available} (gauge): 1 while redis-kit's calls go to Redis, 0 while they are refused
 * after an outage was found.</li>
 * <li>{@code rediskit.outage.started} (counter): outages found, each the start of refusals.</li>
 * <li>{@code rediskit.outage.duration} (timer): how long refusals lasted, recorded when Redis answered a
 * {@code PING} again; its count is the outages that ended.</li>
 * <li>{@code rediskit.outage.refused} (counter): calls refused without asking Redis.</li>
 * </ul>
 */
public class MicrometerRedisAvailabilityListener implements RedisAvailabilityListener {

	private final AtomicInteger available = new AtomicInteger(1);

	private final Counter outages;

	private final Timer outageDuration;

	private final Counter refused;

	/**
	 * @param registry where the meters go
	 */
	public MicrometerRedisAvailabilityListener(MeterRegistry registry) {
		Gauge.builder("rediskit.outage.available", this.available, AtomicInteger::get)
			.description("Whether redis-kit's calls go to Redis (1) or are refused after an outage was found (0)")
			.register(registry);
		this.outages = Counter.builder("rediskit.outage.started")
			.description("Outages found by redis-kit's calls, each starting refusals until Redis answers a PING")
			.register(registry);
		this.outageDuration = Timer.builder("rediskit.outage.duration")
			.description("How long redis-kit refused its calls after finding an outage")
			.register(registry);
		this.refused = Counter.builder("rediskit.outage.refused")
			.description("Calls redis-kit refused without asking Redis, which was known to be unavailable")
			.register(registry);
	}

	@Override
	public void onUnavailable(Throwable cause) {
		this.available.set(0);
		this.outages.increment();
	}

	@Override
	public void onRefused() {
		this.refused.increment();
	}

	@Override
	public void onAvailable(Duration unavailableFor) {
		this.available.set(1);
		this.outageDuration.record(unavailableFor);
	}

}
