package io.rediskit.autoconfigure.counter;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rediskit.counter.UniqueCounterListener;
import io.rediskit.support.RetentionPassedException;

/**
 * Records unique counter calls as Micrometer meters; the {@code counter} tag is the configured name.
 * <ul>
 * <li>{@code rediskit.counter.operations} (timer; {@code counter}, {@code operation} = add | count,
 * {@code result} = success | error | refused, the last a write past the retention): calls and their latency.</li>
 * </ul>
 */
public class MicrometerUniqueCounterListener implements UniqueCounterListener {

	private final MeterRegistry registry;

	private final Map<String, Timer> timers = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 */
	public MicrometerUniqueCounterListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onOperation(String counterName, String operation, Duration latency) {
		timer(counterName, operation, "success").record(latency);
	}

	@Override
	public void onFailure(String counterName, String operation, RuntimeException failure) {
		timer(counterName, operation, "error").record(Duration.ZERO);
	}

	@Override
	public void onRefused(String counterName, String operation, Duration latency, RetentionPassedException refusal) {
		timer(counterName, operation, "refused").record(latency);
	}

	private Timer timer(String counterName, String operation, String result) {
		return this.timers.computeIfAbsent(counterName + '\u0000' + operation + '\u0000' + result,
				(key) -> Timer.builder("rediskit.counter.operations")
					.description("Unique counter calls and their latency")
					.tag("counter", counterName)
					.tag("operation", operation)
					.tag("result", result)
					.register(this.registry));
	}

}
