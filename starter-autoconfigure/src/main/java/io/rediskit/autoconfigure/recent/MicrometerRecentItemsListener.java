package io.rediskit.autoconfigure.recent;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rediskit.recent.RecentItemsListener;

/**
 * Records recent-items calls as Micrometer meters; the {@code list} tag is the configured name.
 * <ul>
 * <li>{@code rediskit.recentitems.operations} (timer; {@code list}, {@code operation} = view | recent | trending |
 * forget, {@code result} = success | error): calls and their latency.</li>
 * </ul>
 */
public class MicrometerRecentItemsListener implements RecentItemsListener {

	private final MeterRegistry registry;

	private final Map<String, Timer> timers = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 */
	public MicrometerRecentItemsListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onOperation(String list, String operation, Duration latency) {
		timer(list, operation, "success").record(latency);
	}

	@Override
	public void onFailure(String list, String operation, RuntimeException failure) {
		timer(list, operation, "error").record(Duration.ZERO);
	}

	private Timer timer(String list, String operation, String result) {
		return this.timers.computeIfAbsent(list + '\u0000' + operation + '\u0000' + result,
				(key) -> Timer.builder("rediskit.recentitems.operations")
					.description("Recent items calls and their latency")
					.tag("list", list)
					.tag("operation", operation)
					.tag("result", result)
					.register(this.registry));
	}

}
