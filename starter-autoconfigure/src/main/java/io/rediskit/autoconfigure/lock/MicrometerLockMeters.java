package io.rediskit.autoconfigure.lock;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.rediskit.support.RedisKitContext;
import io.rediskit.support.RedisKitObservation;
import org.jspecify.annotations.Nullable;

/**
 * Derives the timers of the lock family from its observations ({@code rediskit.lock.wait},
 * {@code rediskit.lock.hold}, {@code rediskit.latch.await}), under the names and tags the lock pages document, so
 * that one instrumentation feeds spans and meters alike. Each is recorded when its observation stops:
 * <ul>
 * <li>{@code rediskit.lock.acquire} (timer; {@code lock}, {@code kind} = single | redlock, {@code result} =
 * acquired | timeout | interrupted | error | skipped): a wait for a lock or a Redlock, from the call until it held
 * the lock or gave up; re-entries count as acquired.</li>
 * <li>{@code rediskit.lock.held} (timer; {@code lock}, {@code kind}): a hold, from its first acquisition to its last
 * release; lost holds and releases that failed are not recorded.</li>
 * <li>{@code rediskit.lock.fair.acquire}, {@code rediskit.lock.fair.held}, {@code rediskit.lock.readwrite.acquire},
 * {@code rediskit.lock.readwrite.held}: the same for fair and read-write locks ({@code kind} = single).</li>
 * <li>{@code rediskit.lock.semaphore.acquire} (timer; {@code semaphore}, {@code result}) and
 * {@code rediskit.lock.semaphore.held} (timer; {@code semaphore}): the same for semaphore permits.</li>
 * <li>{@code rediskit.lock.latch.await} (timer; {@code latch}, {@code result} = opened | timeout | interrupted |
 * error): a wait for a count-down latch.</li>
 * </ul>
 * The lock's group, the semaphore's and the latch's configured names are the tags, never a per-call key. The
 * events that are not timings (renewals, lost leases, failed releases, replica shortfalls, count-downs) are
 * recorded by {@link MicrometerLockListener}, {@link MicrometerSemaphoreListener} and
 * {@link MicrometerLatchListener}. These meters need the application's {@code ObservationRegistry} (Spring Boot
 * Actuator's): without one, nothing is observed and nothing is recorded.
 */
public class MicrometerLockMeters implements ObservationHandler<Observation.Context> {

	private final MeterRegistry registry;

	/**
	 * @param registry where the meters go
	 */
	public MicrometerLockMeters(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		if (context instanceof RedisKitContext observed) {
			RedisKitObservation observation = observed.observation();
			return observation == RedisKitObservation.LOCK_WAIT || observation == RedisKitObservation.LOCK_HOLD
					|| observation == RedisKitObservation.LATCH_AWAIT;
		}
		return false;
	}

	@Override
	public void onStart(Observation.Context context) {
		context.put(MicrometerLockMeters.class, Timer.start(this.registry));
	}

	@Override
	public void onStop(Observation.Context context) {
		Timer.Sample sample = context.get(MicrometerLockMeters.class);
		Timer timer = timer((RedisKitContext) context);
		if (sample != null && timer != null) {
			sample.stop(timer);
		}
	}

	/** @return the timer an observation that ended is recorded in, or {@code null} when it is not recorded */
	private @Nullable Timer timer(RedisKitContext observed) {
		String name = observed.configuredName();
		String outcome = observed.outcome();
		String kind = observed.detail();
		if (observed.observation() == RedisKitObservation.LATCH_AWAIT) {
			return Timer.builder("rediskit.lock.latch.await")
				.description("Time waited for a latch, by outcome")
				.tag("latch", name)
				.tag("result", outcome)
				.register(this.registry);
		}
		boolean wait = observed.observation() == RedisKitObservation.LOCK_WAIT;
		if (!wait && !"released".equals(outcome)) {
			// A hold lost or whose release failed has no hold time to record, as the lock pages say.
			return null;
		}
		if ("semaphore".equals(kind)) {
			Timer.Builder semaphore = wait
					? Timer.builder("rediskit.lock.semaphore.acquire")
						.description("Time to acquire semaphore permits, by outcome")
						.tag("result", outcome)
					: Timer.builder("rediskit.lock.semaphore.held")
						.description("Time semaphore permits were held, from acquisition to release");
			return semaphore.tag("semaphore", name).register(this.registry);
		}
		Timer.Builder lock;
		if ("fair".equals(kind)) {
			lock = wait ? Timer.builder("rediskit.lock.fair.acquire") : Timer.builder("rediskit.lock.fair.held");
		}
		else if ("readwrite".equals(kind)) {
			lock = wait ? Timer.builder("rediskit.lock.readwrite.acquire")
					: Timer.builder("rediskit.lock.readwrite.held");
		}
		else {
			lock = wait ? Timer.builder("rediskit.lock.acquire") : Timer.builder("rediskit.lock.held");
		}
		lock.tag("lock", name).tag("kind", "redlock".equals(kind) ? "redlock" : "single");
		return wait ? lock.description("Time to acquire a distributed lock, by outcome")
			.tag("result", outcome)
			.register(this.registry)
				: lock.description("Time a distributed lock was held, from acquisition to release")
					.register(this.registry);
	}

}
