package io.rediskit.autoconfigure.lock;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rediskit.lock.SemaphoreListener;

/**
 * Records semaphore events as Micrometer meters. The {@code semaphore} tag is the semaphore's group name (never a
 * per-call key), so cardinality stays bounded. The timers of waits and holds
 * ({@code rediskit.lock.semaphore.acquire}, {@code rediskit.lock.semaphore.held}) come from the observations,
 * through {@link MicrometerLockMeters}; this listener counts the events:
 * <ul>
 * <li>{@code rediskit.lock.semaphore.renewals} (counter; {@code semaphore}, {@code result} = renewed | lost | error):
 * watchdog lease renewals.</li>
 * <li>{@code rediskit.lock.semaphore.lost} (counter; {@code semaphore}): leases that ended before their release, whose
 * permits came back to the semaphore.</li>
 * <li>{@code rediskit.lock.semaphore.release.failures} (counter; {@code semaphore}): releases that could not reach
 * Redis; the lease ends those holds.</li>
 * </ul>
 */
public class MicrometerSemaphoreListener implements SemaphoreListener {

	private final MeterRegistry registry;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 */
	public MicrometerSemaphoreListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onRenewal(String lockName, RenewalResult result) {
		String outcome = result.name().toLowerCase(Locale.ROOT);
		counter("rediskit.lock.semaphore.renewals", "Watchdog renewals of semaphore leases, by outcome", lockName, outcome)
			.increment();
	}

	@Override
	public void onLeaseLost(String lockName, long fencingToken) {
		counter("rediskit.lock.semaphore.lost", "Semaphore leases that ended before their release", lockName, null)
			.increment();
	}

	@Override
	public void onReleaseFailed(String lockName) {
		counter("rediskit.lock.semaphore.release.failures",
				"Semaphore releases that could not reach Redis; the lease ends the hold", lockName, null)
			.increment();
	}

	private Counter counter(String name, String description, String semaphore, String result) {
		return this.counters.computeIfAbsent(name + '\0' + semaphore + '\0' + result, (key) -> {
			Counter.Builder builder = Counter.builder(name).description(description).tag("semaphore", semaphore);
			if (result != null) {
				builder.tag("result", result);
			}
			return builder.register(this.registry);
		});
	}

}
