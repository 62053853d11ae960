package io.rediskit.lock;

import java.time.Duration;

import io.rediskit.support.InvalidSpecException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The Redlock spec: defaults, the validity and clock-drift rule, and every rejected value. */
class RedlockSpecTests {

	@Test
	void defaultsAreThePublishedOnes() {
		RedlockSpec spec = RedlockSpec.defaults();
		assertThat(spec.nodeTimeout()).isEqualTo(Duration.ofMillis(100));
		assertThat(spec.watchdogTimeout()).isEqualTo(Duration.ofSeconds(30));
		assertThat(spec.defaultLeaseTime()).isNull();
		assertThat(spec.defaultWaitTime()).isEqualTo(Duration.ofSeconds(10));
		assertThat(spec.clockDriftFactor()).isEqualTo(0.01);
		assertThat(spec.clockDriftMargin()).isEqualTo(Duration.ofMillis(2));
		assertThat(spec.retryDelay()).isEqualTo(Duration.ofMillis(50));
		assertThat(spec.retryJitter()).isEqualTo(Duration.ofMillis(100));
	}

	@Test
	void driftIsOnePercentOfTheLeasePlusTwoMilliseconds() {
		RedlockSpec spec = RedlockSpec.defaults();
		assertThat(spec.clockDrift(Duration.ofSeconds(10))).isEqualTo(Duration.ofMillis(102));
		assertThat(spec.clockDrift(Duration.ofSeconds(30))).isEqualTo(Duration.ofMillis(302));
		assertThat(spec.clockDrift(Duration.ofMillis(300))).isEqualTo(Duration.ofMillis(5));
	}

	@Test
	void validityIsLeaseMinusElapsedMinusDrift() {
		RedlockSpec spec = RedlockSpec.defaults();
		assertThat(spec.validity(Duration.ofSeconds(10), Duration.ofMillis(40))).isEqualTo(Duration.ofMillis(9858));
		// A round that took almost the whole lease leaves nothing: the acquisition does not count.
		assertThat(spec.validity(Duration.ofSeconds(1), Duration.ofMillis(990)).isNegative()).isTrue();
		assertThat(spec.withClockDrift(0, Duration.ZERO).validity(Duration.ofSeconds(1), Duration.ofMillis(250)))
			.isEqualTo(Duration.ofMillis(750));
		assertThat(spec.withClockDrift(0.1, Duration.ofMillis(10)).validity(Duration.ofSeconds(1), Duration.ZERO))
			.isEqualTo(Duration.ofMillis(890));
	}

	@Test
	void everyOutOfRangeValueIsRejectedNamingItsComponent() {
		RedlockSpec spec = RedlockSpec.defaults();
		assertRejected(() -> spec.withNodeTimeout(Duration.ZERO), "nodeTimeout");
		assertRejected(() -> spec.withNodeTimeout(Duration.ofSeconds(11)), "watchdogTimeout");
		assertRejected(() -> spec.withWatchdogTimeout(Duration.ofMillis(-1)), "watchdogTimeout");
		assertRejected(() -> spec.withWatchdogTimeout(Duration.ofMillis(299)), "watchdogTimeout");
		assertRejected(() -> spec.withDefaultLeaseTime(Duration.ofMillis(200)), "defaultLeaseTime");
		assertRejected(() -> spec.withDefaultWaitTime(Duration.ofSeconds(-1)), "defaultWaitTime");
		assertRejected(() -> spec.withClockDrift(-0.01, Duration.ZERO), "clockDriftFactor");
		assertRejected(() -> spec.withClockDrift(0.6, Duration.ZERO), "clockDriftFactor");
		assertRejected(() -> spec.withClockDrift(Double.NaN, Duration.ZERO), "clockDriftFactor");
		assertRejected(() -> spec.withClockDrift(0.01, Duration.ofMillis(-1)), "clockDriftMargin");
		assertRejected(() -> spec.withRetry(Duration.ZERO, Duration.ZERO), "retryDelay");
		assertRejected(() -> spec.withRetry(Duration.ofMillis(10), Duration.ofMillis(-1)), "retryJitter");
	}

	@Test
	void aCallsLeaseMustBeAtLeastThreeNodeTimeouts() {
		RedlockSpec spec = RedlockSpec.defaults();
		spec.requireLease(Duration.ofMillis(300));
		assertThatIllegalArgumentException().isThrownBy(() -> spec.requireLease(Duration.ofMillis(299)))
			.withMessageContaining("three node timeouts");
	}

	private static void assertRejected(Runnable creation, String component) {
		assertThatExceptionOfType(InvalidSpecException.class).isThrownBy(creation::run)
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo(component));
	}

}
