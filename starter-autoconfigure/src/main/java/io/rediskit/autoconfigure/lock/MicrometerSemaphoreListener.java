package io.rediskit.autoconfigure.lock;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rediskit.lock.SemaphoreListener;

/**
 * Records semaphore events as Micrometer meters. The {@code semaphore} tag is the semaphore's group name (never a
 * per-call key), so cardinality stays bounded.
 * <ul>
 * <li>{@code rediskit.lock.semaphore.acquire} (timer; {@code semaphore}, {@code result} = acquired | timeout |
 * interrupted | error): time from the call until it held its permits or gave up.</li>
 * <li>{@code rediskit.lock.semaphore.held} (timer; {@code semaphore}): time from acquisition to release.</li>
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

	private final Map<String, Timer> acquireTimers = new ConcurrentHashMap<>();

	private final Map<String, Timer> heldTimers = new ConcurrentHashMap<>();

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 */
	public MicrometerSemaphoreListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onAcquire(String lockName, AcquireResult result, Duration waited) {
		String outcome = result.name().toLowerCase(Locale.ROOT);
		this.acquireTimers.computeIfAbsent(lockName + '\0' + outcome, (key) -> Timer.builder("rediskit.lock.semaphore.acquire")
			.description("Time to acquire semaphore permits, by outcome")
			.tag("semaphore", lockName)
			.tag("result", outcome)
			.register(this.registry)).record(waited);
	}

	@Override
	public void onRelease(String lockName, Duration held) {
		this.heldTimers.computeIfAbsent(lockName, (key) -> Timer.builder("rediskit.lock.semaphore.held")
			.description("Time semaphore permits were held, from acquisition to release")
			.tag("semaphore", lockName)
			.register(this.registry)).record(held);
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
