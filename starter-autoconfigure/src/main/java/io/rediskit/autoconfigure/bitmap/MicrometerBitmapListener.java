package io.rediskit.autoconfigure.bitmap;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rediskit.bitmap.BitmapListener;
import io.rediskit.support.RetentionPassedException;

/**
 * Records calendar, daily activity and packed-counter calls as Micrometer meters; the {@code name} tag is the configured name,
 * never a user.
 * <ul>
 * <li>{@code rediskit.counter.bitmap.operations} (timer; {@code name}, {@code operation} such as check-in, streak,
 * mark-active, retention or increment, {@code result} = success | error | refused, the last a check-in or mark past
 * the retention): calls and
 * their latency.</li>
 * </ul>
 */
public class MicrometerBitmapListener implements BitmapListener {

	private final MeterRegistry registry;

	private final Map<String, Timer> timers = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 */
	public MicrometerBitmapListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onOperation(String name, String operation, Duration latency) {
		timer(name, operation, "success").record(latency);
	}

	@Override
	public void onFailure(String name, String operation, RuntimeException failure) {
		timer(name, operation, "error").record(Duration.ZERO);
	}

	@Override
	public void onRefused(String name, String operation, Duration latency, RetentionPassedException refusal) {
		timer(name, operation, "refused").record(latency);
	}

	private Timer timer(String name, String operation, String result) {
		return this.timers.computeIfAbsent(name + '\u0000' + operation + '\u0000' + result,
				(key) -> Timer.builder("rediskit.counter.bitmap.operations")
					.description("Check-in calendar, daily activity and packed counter calls and their latency")
					.tag("name", name)
					.tag("operation", operation)
					.tag("result", result)
					.register(this.registry));
	}

}
