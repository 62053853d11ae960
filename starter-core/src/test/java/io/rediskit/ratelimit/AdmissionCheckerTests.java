package io.rediskit.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.rediskit.ratelimit.AdmissionChecker.Admission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** The checker the concurrency tests rely on finds over-admission, and accepts logs within the bound. */
class AdmissionCheckerTests {

	static final long T0 = 1_700_002_800_000_000L;

	static final long SECOND = 1_000_000L;

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void acceptsEvenlySpacedAdmissionsBelowTheRate(RateLimitAlgorithm algorithm) {
		RateLimitSpec spec = RateLimitSpec.of(algorithm, 10, Duration.ofSeconds(1));
		List<Admission> log = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			log.add(new Admission(T0 + i * SECOND / 8, 1));
		}
		assertThat(AdmissionChecker.check(spec, log).holds()).isTrue();
		assertThat(AdmissionChecker.check(spec, log).admitted()).isEqualTo(100);
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void rejectsOnePermitTooManyAtOnce(RateLimitAlgorithm algorithm) {
		RateLimitSpec spec = RateLimitSpec.of(algorithm, 10, Duration.ofSeconds(1));
		List<Admission> log = new ArrayList<>();
		for (int i = 0; i < 11; i++) {
			log.add(new Admission(T0 + 1000 + i, 1));
		}
		assertThat(AdmissionChecker.check(spec, log).ratio()).isGreaterThan(1.0);
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> AdmissionChecker.assertHolds(spec, log));
	}

	@Test
	void slidingLogCatchesADoubleBurstAcrossAWindowBoundaryThatFixedWindowsAllow() {
		List<Admission> log = new ArrayList<>();
		log.add(new Admission(T0 + SECOND - 10, 10));
		log.add(new Admission(T0 + SECOND + 10, 10));
		assertThat(AdmissionChecker.check(RateLimitSpec.of(RateLimitAlgorithm.FIXED_WINDOW, 10, Duration.ofSeconds(1)), log)
			.holds()).isTrue();
		assertThat(AdmissionChecker.check(RateLimitSpec.of(RateLimitAlgorithm.SLIDING_LOG, 10, Duration.ofSeconds(1)), log)
			.ratio()).isEqualTo(2.0);
		assertThat(AdmissionChecker.check(RateLimitSpec.of(RateLimitAlgorithm.SLIDING_WINDOW, 10, Duration.ofSeconds(1)), log)
			.holds()).as("the weighted estimate counts the previous window").isFalse();
	}

	@Test
	void refillBoundAllowsTheBurstThenOnlyTheRate() {
		RateLimitSpec spec = RateLimitSpec.of(RateLimitAlgorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(1)).withBurst(5);
		List<Admission> log = new ArrayList<>(List.of(new Admission(T0, 5), new Admission(T0 + SECOND / 10, 1)));
		assertThat(AdmissionChecker.check(spec, log).holds()).isTrue();
		log.add(new Admission(T0 + SECOND / 10 + 1, 1));
		assertThat(AdmissionChecker.check(spec, log).holds()).isFalse();
	}

}
