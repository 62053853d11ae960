package io.rediskit.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimitDecision.Outcome;
import io.rediskit.ratelimit.RateLimitListener;

/**
 * Records rate-limit decisions as Micrometer meters. The {@code limiter} tag is the limiter's configured name,
 * never the per-call key, so cardinality stays bounded: at most five meters per limiter.
 * <ul>
 * <li>{@code rediskit.ratelimit.decisions} (counter; {@code limiter}, {@code result} = allowed | rejected |
 * error-allowed | error-rejected): decisions, by outcome; the {@code error-} outcomes are those of the failure
 * policy while Redis could not answer.</li>
 * <li>{@code rediskit.ratelimit.latency} (timer; {@code limiter}): time to reach a decision, the Redis round
 * trip included.</li>
 * </ul>
 * Meters are registered on a limiter's first decision of each outcome and then reused, so a decision costs a
 * map lookup and the recording, no meter building.
 */
public class MicrometerRateLimitListener implements RateLimitListener {

	private static final Outcome[] OUTCOMES = Outcome.values();

	private final MeterRegistry registry;

	private final Map<String, LimiterMeters> meters = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 */
	public MicrometerRateLimitListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onDecision(String limiterName, RateLimitDecision decision, Duration latency) {
		LimiterMeters limiter = this.meters.computeIfAbsent(limiterName, LimiterMeters::new);
		limiter.decisions(decision.outcome()).increment();
		limiter.latency.record(latency);
	}

	/** The meters of one limiter; counters by outcome ordinal, registered on first use. */
	private final class LimiterMeters {

		private final String limiterName;

		private final Timer latency;

		private final AtomicReferenceArray<Counter> decisions = new AtomicReferenceArray<>(OUTCOMES.length);

		LimiterMeters(String limiterName) {
			this.limiterName = limiterName;
			this.latency = Timer.builder("rediskit.ratelimit.latency")
				.description("Time to reach a rate-limit decision, including the Redis round trip")
				.tag("limiter", limiterName)
				.register(MicrometerRateLimitListener.this.registry);
		}

		Counter decisions(Outcome outcome) {
			Counter counter = this.decisions.get(outcome.ordinal());
			if (counter == null) {
				// A race registers the same meter twice, and Micrometer returns the one it already has.
				counter = Counter.builder("rediskit.ratelimit.decisions")
					.description("Rate-limit decisions, by outcome")
					.tag("limiter", this.limiterName)
					.tag("result", outcome.tag())
					.register(MicrometerRateLimitListener.this.registry);
				this.decisions.set(outcome.ordinal(), counter);
			}
			return counter;
		}

	}

}
