package io.rediskit.autoconfigure.support;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.boot.convert.DurationStyle;

import static org.assertj.core.api.Assertions.assertThat;

/** Durations as people read them, in the form the properties take back. */
class DurationsTests {

	@Test
	void theLargestUnitThatStatesTheDurationExactly() {
		assertThat(Durations.format(Duration.ofHours(9600))).isEqualTo("400d");
		assertThat(Durations.format(Duration.ofMinutes(5))).isEqualTo("5m");
		assertThat(Durations.format(Duration.ofSeconds(30))).isEqualTo("30s");
		assertThat(Durations.format(Duration.ofMinutes(90))).isEqualTo("90m");
		assertThat(Durations.format(Duration.ofHours(2))).isEqualTo("2h");
		assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
		assertThat(Durations.format(Duration.ofNanos(2500))).isEqualTo("2500ns");
		assertThat(Durations.format(Duration.ofNanos(3000))).isEqualTo("3us");
		assertThat(Durations.format(Duration.ZERO)).isEqualTo("0s");
		assertThat(Durations.format(Duration.ofSeconds(-5))).isEqualTo("-5s");
		assertThat(Durations.format(Duration.ofDays(1_000_000))).isEqualTo("1000000d");
	}

	@Test
	void durationsInAMessageAreRewritten() {
		assertThat(Durations.inText("must be at most 36500 days (100 years), was PT24000000H"))
			.isEqualTo("must be at most 36500 days (100 years), was 1000000d");
		assertThat(Durations.inText("lockAtLeastFor (PT2M) must not be longer than PT1M30S; was PT0.1S or PT-5S"))
			.isEqualTo("lockAtLeastFor (2m) must not be longer than 90s; was 100ms or -5s");
		assertThat(Durations.inText("PTA is no duration, nor is SPT1S")).isEqualTo("PTA is no duration, nor is SPT1S");
	}

	@Test
	void whatIsShownBindsBackToTheSameDuration() {
		for (Duration duration : new Duration[] { Duration.ofHours(9600), Duration.ofMillis(1500),
				Duration.ofNanos(123_456_789), Duration.ofSeconds(61), Duration.ofDays(36500).plusMillis(1) }) {
			assertThat(DurationStyle.detectAndParse(Durations.format(duration))).isEqualTo(duration);
		}
	}

}
