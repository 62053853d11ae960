package io.rediskit.autoconfigure.console;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The sampler's rates, percentiles and bounded memory, on a pinned clock. */
class ConsoleMetricsTests {

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private final AtomicLong now = new AtomicLong(1_000_000);

	private final ConsoleMetrics metrics = new ConsoleMetrics(this.meters, Duration.ofSeconds(5), 3, null,
			this.now::get);

	@Test
	void countersBecomeRatesPerSecondSinceTheSampleBefore() {
		Counter counter = this.meters.counter("rediskit.queue.delivered", "queue", "orders");
		this.meters.counter("other.meter").increment();
		counter.increment(4);
		this.metrics.sample();
		this.now.addAndGet(2000);
		counter.increment(10);
		this.metrics.sample();
		List<Map<String, Object>> series = this.metrics.series("rediskit.");
		assertThat(series).singleElement().satisfies((one) -> {
			assertThat(one).containsEntry("name", "rediskit.queue.delivered").containsEntry("kind", "counter")
				.containsEntry("tags", Map.of("queue", "orders"));
			assertThat(samples(one)).extracting((sample) -> sample.get("rate")).containsExactly(null, 5.0);
		});
	}

	@Test
	void aTimerGivesItsRateAndMeanSinceTheSampleBeforeAndPercentilesFromItsHistogram() {
		Timer timer = Timer.builder("rediskit.queue.lateness")
			.publishPercentiles(0.5, 0.95, 0.99)
			.percentilePrecision(1)
			.register(this.meters);
		this.metrics.sample();
		this.now.addAndGet(5000);
		for (int i = 0; i < 99; i++) {
			timer.record(Duration.ofMillis(2));
		}
		timer.record(Duration.ofMillis(900));
		this.metrics.sample();
		Map<String, Object> last = samples(this.metrics.series("rediskit.queue.lateness").get(0)).get(1);
		assertThat(last.get("rate")).isEqualTo(20.0);
		// Micrometer's estimates, in milliseconds: 99 of 100 values took 2 ms, one 900 ms.
		assertThat((Double) last.get("p50")).isBetween(1.0, 3.0);
		assertThat((Double) last.get("p95")).isBetween(1.0, 3.0);
		assertThat((Double) last.get("mean")).isBetween(10.9, 11.0);
		timer.record(Duration.ofSeconds(10));
		this.now.addAndGet(5000);
		this.metrics.sample();
		Map<String, Object> after = samples(this.metrics.series("rediskit.queue.lateness").get(0)).get(2);
		assertThat(after.get("mean")).isEqualTo(10_000.0);
	}

	@Test
	void keepsTheLastSamplesOnlyAndSamplesOnDemandWithoutAScheduler() {
		this.meters.gauge("rediskit.queue.messages", 7);
		for (int i = 0; i < 5; i++) {
			this.now.addAndGet(5000);
			this.metrics.series("rediskit.");
		}
		this.metrics.series("rediskit.");
		List<Map<String, Object>> kept = samples(this.metrics.series("rediskit.").get(0));
		assertThat(kept).hasSize(3).allSatisfy((sample) -> assertThat(sample.get("value")).isEqualTo(7.0));
		assertThat(kept.get(2).get("t")).isEqualTo(this.now.get());
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> samples(Map<String, Object> series) {
		return (List<Map<String, Object>>) series.get("samples");
	}

}
