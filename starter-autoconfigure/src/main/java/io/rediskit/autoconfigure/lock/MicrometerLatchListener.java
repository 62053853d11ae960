package io.rediskit.autoconfigure.lock;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rediskit.latch.LatchListener;

/**
 * Records count-down latch events as Micrometer meters, tagged with the latch's name (use a fixed set of names).
 * <ul>
 * <li>{@code rediskit.lock.latch.countdowns} (counter; {@code latch}): count-downs applied.</li>
 * <li>{@code rediskit.lock.latch.opened} (counter; {@code latch}): count-downs that reached zero.</li>
 * <li>{@code rediskit.lock.latch.await} (timer; {@code latch}, {@code result} = opened | timeout | interrupted | error):
 * time waited for the latch.</li>
 * </ul>
 */
public class MicrometerLatchListener implements LatchListener {

	private final MeterRegistry registry;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	private final Map<String, Timer> awaitTimers = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 */
	public MicrometerLatchListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onCountDown(String latchName, long remaining) {
		counter("rediskit.lock.latch.countdowns", "Count-downs applied to a latch", latchName).increment();
		if (remaining == 0) {
			counter("rediskit.lock.latch.opened", "Count-downs that opened a latch", latchName).increment();
		}
	}

	@Override
	public void onAwait(String latchName, AwaitResult result, Duration waited) {
		String outcome = result.name().toLowerCase(Locale.ROOT);
		this.awaitTimers.computeIfAbsent(latchName + '\0' + outcome, (key) -> Timer.builder("rediskit.lock.latch.await")
			.description("Time waited for a latch, by outcome")
			.tag("latch", latchName)
			.tag("result", outcome)
			.register(this.registry)).record(waited);
	}

	private Counter counter(String name, String description, String latch) {
		return this.counters.computeIfAbsent(name + '\0' + latch,
				(key) -> Counter.builder(name).description(description).tag("latch", latch).register(this.registry));
	}

}
