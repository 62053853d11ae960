package io.rediskit.autoconfigure.lock;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rediskit.latch.LatchListener;

/**
 * Records count-down latch events as Micrometer meters, tagged with the latch's name (use a fixed set of names).
 * <ul>
 * <li>{@code rediskit.lock.latch.countdowns} (counter; {@code latch}): count-downs applied.</li>
 * <li>{@code rediskit.lock.latch.opened} (counter; {@code latch}): count-downs that reached zero.</li>
 * </ul>
 * The timer of the waits ({@code rediskit.lock.latch.await}) comes from their observations, through
 * {@link MicrometerLockMeters}.
 */
public class MicrometerLatchListener implements LatchListener {

	private final MeterRegistry registry;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

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

	private Counter counter(String name, String description, String latch) {
		return this.counters.computeIfAbsent(name + '\0' + latch,
				(key) -> Counter.builder(name).description(description).tag("latch", latch).register(this.registry));
	}

}
