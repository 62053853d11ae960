package io.rediskit.autoconfigure.id;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rediskit.id.IdGeneratorListener;

/**
 * Records the blocks id generators reserve as Micrometer meters; the {@code generator} tag is the configured name.
 * <ul>
 * <li>{@code rediskit.id.blocks} (timer; {@code generator}, {@code result} = success | error): reservations and
 * their latency (each serves a block of ids).</li>
 * </ul>
 */
public class MicrometerIdGeneratorListener implements IdGeneratorListener {

	private final MeterRegistry registry;

	private final Map<String, Timer> timers = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 */
	public MicrometerIdGeneratorListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onBlock(String generator, int blockSize, Duration latency) {
		timer(generator, "success").record(latency);
	}

	@Override
	public void onFailure(String generator, RuntimeException failure) {
		timer(generator, "error").record(Duration.ZERO);
	}

	private Timer timer(String generator, String result) {
		return this.timers.computeIfAbsent(generator + '\u0000' + result, (key) -> Timer.builder("rediskit.id.blocks")
			.description("Id blocks reserved and their latency")
			.tag("generator", generator)
			.tag("result", result)
			.register(this.registry));
	}

}
