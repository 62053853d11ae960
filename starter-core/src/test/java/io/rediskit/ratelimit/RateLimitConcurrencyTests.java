package io.rediskit.ratelimit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.rediskit.ratelimit.AdmissionChecker.Admission;
import io.rediskit.ratelimit.AdmissionChecker.Result;
import io.rediskit.ratelimit.RateLimitLoad.Granted;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Many threads in this JVM and in a second one hit one key; {@link AdmissionChecker} checks every admission,
 * stamped with the server time of its decision, against the algorithm's bound.
 */
class RateLimitConcurrencyTests {

	static final int THREADS = 128;

	static final int WORKER_THREADS = 32;


	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	RateLimiterRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = new RateLimiterRegistry(redis.connections(), KeyNaming.defaults(), RateLimitListener.NONE);
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void manyThreadsInTwoJvmsNeverExceedTheBound(RateLimitAlgorithm algorithm) throws Exception {
		RateLimitSpec spec = RateLimitSpec.of(algorithm, 40, Duration.ofMillis(200));
		List<Granted> admitted = loadFromTwoJvms(spec, 1500);
		Result result = AdmissionChecker.check(spec, admissions(admitted));
		System.out.printf("%s: %d permits admitted, worst window at %.3f of the bound%n", algorithm, result.admitted(),
				result.ratio());
		AdmissionChecker.assertHolds(spec, admissions(admitted));
		assertThat(result.ratio()).as("the load pressed against the limit").isGreaterThan(0.8);
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void aBurstStraddlingAWindowBoundaryStaysWithinTheBound(RateLimitAlgorithm algorithm) throws Exception {
		RateLimitSpec spec = RateLimitSpec.of(algorithm, 50, Duration.ofSeconds(1));
		RedisRateLimiter limiter = RateLimitTesting.internal(this.registry.create("straddle", spec));
		limiter.reset("warm-up");
		for (int attempt = 1;; attempt++) {
			String key = "k" + attempt;
			long[] boundary = new long[1];
			// The burst starts 100 ms before a window boundary (in server time) and lasts 200 ms.
			List<Granted> admitted = RateLimitLoad.run(limiter, key, THREADS, TimeUnit.MILLISECONDS.toNanos(200), 1,
					() -> {
						long now = serverMicros();
						boundary[0] = (now / 1_000_000 + 1) * 1_000_000 + ((now % 1_000_000 > 800_000) ? 1_000_000 : 0);
						TimeUnit.MICROSECONDS.sleep(boundary[0] - 100_000 - now);
					});
			AdmissionChecker.assertHolds(spec, admissions(admitted));
			boolean startedBeforeTheBoundary = admitted.stream().anyMatch((granted) -> granted.micros() < boundary[0]);
			if (!startedBeforeTheBoundary && attempt < 5) {
				// A loaded machine woke the threads too late to straddle: that attempt proves nothing, try again.
				continue;
			}
			assertThat(startedBeforeTheBoundary).as("admissions before the boundary").isTrue();
			if (algorithm == RateLimitAlgorithm.FIXED_WINDOW) {
				assertThat(admitted.stream().mapToLong(Granted::permits).sum()).as("a limit on each side of the boundary")
					.isEqualTo(2 * spec.limit());
			}
			return;
		}
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void aRateLoweredUnderLoadHoldsBeforeAndAfterTheChange(RateLimitAlgorithm algorithm) throws Exception {
		RateLimitSpec before = RateLimitSpec.of(algorithm, 40, Duration.ofMillis(200));
		RateLimitSpec after = RateLimitSpec.of(algorithm, 10, Duration.ofMillis(200));
		RedisRateLimiter limiter = RateLimitTesting.internal(this.registry.create("changing", before));
		limiter.reset("warm-up");
		Thread change = new Thread(() -> {
			try {
				Thread.sleep(800);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.registry.update("changing", after);
		});
		change.start();
		List<Granted> admitted = RateLimitLoad.run(limiter, "k", THREADS, TimeUnit.MILLISECONDS.toNanos(1600), 2);
		change.join();
		long firstNew = admitted.stream().filter((g) -> g.spec().equals(after)).mapToLong(Granted::micros).min()
			.orElseThrow(() -> new AssertionError("nothing admitted under the new spec"));
		long lastOld = admitted.stream().filter((g) -> g.spec().equals(before)).mapToLong(Granted::micros).max()
			.orElseThrow(() -> new AssertionError("nothing admitted under the old spec"));
		// Decisions still in flight at the change may overlap; each spec is checked where it alone decided.
		List<Admission> underOld = admitted.stream().filter((g) -> g.micros() < firstNew).map(Granted::admission).toList();
		List<Admission> underNew = admitted.stream().filter((g) -> g.micros() > lastOld).map(Granted::admission).toList();
		assertThat(underOld).isNotEmpty();
		assertThat(underNew).isNotEmpty();
		AdmissionChecker.assertHolds(before, underOld);
		AdmissionChecker.assertHolds(after, underNew);
		// The new rate applies within a period of the change, without a reset to full capacity.
		assertThat(lastOld - firstNew).as("overlap of the two specs, µs").isLessThan(200_000);
	}

	@Test
	void aClientClockThirtySecondsAheadChangesNothing() throws Exception {
		assumeTrue(Files.isExecutable(Path.of("/usr/bin/faketime")),
				"faketime (apt package faketime) skews the second JVM's clock; .ci/run installs it");
		// One skewed JVM serves every algorithm: a JVM start under faketime per algorithm would only add time.
		RateLimitWorker.Handle skewed = RateLimitWorker.start(30, "sequential", Integer.toString(redis.server().port()));
		try {
			assertThat(skewed.clockMillis - System.currentTimeMillis()).as("the worker's clock is 30 s ahead")
				.isBetween(25_000L, 35_000L);
			for (RateLimitAlgorithm algorithm : RateLimitAlgorithm.values()) {
				RateLimitSpec spec = RateLimitSpec.of(algorithm, 30, Duration.ofHours(1));
				// One name per algorithm: a name keeps one spec.
				String name = "skewed-" + algorithm.ordinal();
				RateLimiter limiter = this.registry.create(name, spec);
				long start = serverMicros();
				// First a client on the real clock takes half, then one whose clock is 30 s ahead asks for more. Had
				// the skewed client's time counted, it would find the window moved on, the bucket refilled, the log
				// trimmed, and get a full limit.
				for (int i = 0; i < 15; i++) {
					assertThat(limiter.tryAcquire("k").allowed()).isTrue();
				}
				skewed.send(algorithm + " 30 " + spec.period().toMillis() + " " + name + " k 20");
				List<Granted> fromSkewedClient = skewed.admissions(spec);
				long end = serverMicros();
				if (start / spec.periodMicros() != end / spec.periodMicros()) {
					continue; // the run crossed an hour boundary, where windows legitimately start again
				}
				assertThat(fromSkewedClient).as("%s: the skewed client got the other half, no more", algorithm).hasSize(15);
				AdmissionChecker.assertHolds(spec, admissions(fromSkewedClient));
			}
		}
		finally {
			skewed.process.destroyForcibly();
		}
	}

	/** This JVM's threads and a second JVM's hit one key together. */
	private List<Granted> loadFromTwoJvms(RateLimitSpec spec, long millis) throws Exception {
		RedisRateLimiter limiter = RateLimitTesting.internal(this.registry.create("shared", spec));
		limiter.reset("warm-up");
		RateLimitWorker.Handle worker = RateLimitWorker.start(0, Integer.toString(redis.server().port()),
				spec.algorithm().name(), Long.toString(spec.limit()), Long.toString(spec.period().toMillis()), "0",
				Integer.toString(WORKER_THREADS), Long.toString(millis), "shared", "k", "2");
		try {
			worker.go();
			List<Granted> admitted = new ArrayList<>(
					RateLimitLoad.run(limiter, "k", THREADS, TimeUnit.MILLISECONDS.toNanos(millis), 2));
			List<Granted> fromWorker = worker.admissions(spec);
			assertThat(fromWorker).as("admissions in the second JVM").isNotEmpty();
			admitted.addAll(fromWorker);
			return admitted;
		}
		finally {
			worker.process.destroyForcibly();
		}
	}

	private static List<Admission> admissions(List<Granted> admitted) {
		return admitted.stream().map(Granted::admission).toList();
	}

	private static long serverMicros() {
		List<?> time = (List<?>) redis.server().command("TIME");
		return Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
	}

}
