package io.rediskit.benchmarks;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * How far the rounds of a figure disagree, and when that makes it noisy: the rule every benchmark's line and
 * result file report.
 */
class SpreadTests {

	@Test
	void spreadIsTheRangeOverTheMedianRound() {
		Spread spread = Spread.of(90, 110, 100);
		assertThat(spread.median()).isEqualTo(100);
		assertThat(spread.spread()).isEqualTo(0.2);
		assertThat(spread.noisy()).isFalse();
		assertThat(spread.token()).isEqualTo("spread=20%");
		assertThat(spread.rounds()).containsExactly(90.0, 110.0, 100.0);
	}

	@Test
	void medianOfAnEvenCountIsTheUpperMiddleRoundAsTheBenchmarksReportIt() {
		assertThat(Spread.of(40, 10, 30, 20).median()).isEqualTo(30);
	}

	@Test
	void roundsMoreThanAQuarterApartAreNoisyAndExactlyAQuarterIsNot() {
		assertThat(Spread.of(100, 75, 100).noisy()).isFalse();
		Spread noisy = Spread.of(100, 74, 100);
		assertThat(noisy.spread()).isEqualTo(0.26);
		assertThat(noisy.noisy()).isTrue();
		assertThat(noisy.token()).isEqualTo("spread=26% NOISY");
		// Against the median, not the mean or the smallest round: 26 of 110 is within a quarter.
		assertThat(Spread.of(100, 126, 110).noisy()).isFalse();
	}

	@Test
	void oneRoundSaysNothingAboutNoise() {
		Spread spread = Spread.of(List.of(5000L));
		assertThat(spread.median()).isEqualTo(5000);
		assertThat(spread.spread()).isNaN();
		assertThat(spread.noisy()).isFalse();
		assertThat(spread.token()).isEqualTo("spread=n/a");
		assertThat(spread.toJson()).containsEntry("spread", null).containsEntry("noisy", false);
	}

	@Test
	void roundsThatAgreeExactlyHaveNoSpreadEvenAtZero() {
		assertThat(Spread.of(0, 0, 0).spread()).isZero();
		assertThat(Spread.of(7, 7).noisy()).isFalse();
	}

	@Test
	void roundsThatDisagreeAroundAMedianOfZeroAreNoisy() {
		Spread spread = Spread.of(0, 0, 3);
		assertThat(spread.noisy()).isTrue();
		assertThat(spread.token()).isEqualTo("spread=inf NOISY");
		assertThat(spread.toJson().get("spread")).isEqualTo(Double.MAX_VALUE);
	}

	@Test
	void lineOfSeveralLibrariesGivesEachSpreadAndIsNoisyIfAnyIs() {
		Map<String, Spread> byLibrary = new LinkedHashMap<>();
		byLibrary.put("redis-kit", Spread.of(100, 104, 102));
		byLibrary.put("redisson", Spread.of(60, 100, 80));
		assertThat(Spread.token(byLibrary)).isEqualTo("spread=redis-kit:4%,redisson:50% NOISY");
		byLibrary.put("redisson", Spread.of(80, 81, 80));
		assertThat(Spread.token(byLibrary)).isEqualTo("spread=redis-kit:4%,redisson:1%");
	}

	@Test
	void resultFileGetsEveryRoundTheSpreadInTwoDecimalsAndTheFlag() {
		assertThat(Spread.of(1000, 1333, 1100).toJson()).containsExactly(
				Map.entry("byRound", List.of(1000.0, 1333.0, 1100.0)), Map.entry("spread", 0.3),
				Map.entry("noisy", true));
	}

	@Test
	void rejectsNoRoundsAndFiguresThatAreNotMeasurements() {
		assertThatIllegalArgumentException().isThrownBy(() -> Spread.of()).withMessageContaining("rounds");
		assertThatIllegalArgumentException().isThrownBy(() -> Spread.of(1, Double.NaN))
			.withMessageContaining("rounds must be finite");
		assertThatIllegalArgumentException().isThrownBy(() -> Spread.of(1, Double.POSITIVE_INFINITY))
			.withMessageContaining("rounds must be finite");
	}

	@Test
	void pairedRatioIsTheMedianOfEachRoundOverTheRoundRunNextToIt() {
		// The host slows by half in the second round and by a third in the third: both libraries with it.
		Spread redisKit = Spread.of(1000, 500, 660);
		Spread floor = Spread.of(1000, 520, 700);
		Spread paired = Spread.paired(redisKit, floor);
		assertThat(paired.rounds()).containsExactly(1.0, 500.0 / 520, 660.0 / 700);
		assertThat(paired.median()).isEqualTo(500.0 / 520);
		assertThat(Spread.ofFloorToken(redisKit, floor)).isEqualTo("of-floor=0.96 (rounds 1.00/0.96/0.94)");
		assertThat(Spread.ofFloorToken(Spread.of(990), Spread.of(1000))).isEqualTo("of-floor=0.99");
	}

	@Test
	void pairingKeepsOneLibrarysSlowRoundFromBeingSetAgainstTheOthersUsualOne() {
		// redis-kit at 0.9 of the floor in two rounds; the floor's third run was the slow one. The medians (700 and
		// 650) would say 1.08.
		Spread paired = Spread.paired(Spread.of(900, 450, 700), Spread.of(1000, 500, 650));
		assertThat(paired.median()).isEqualTo(0.9);
	}

	@Test
	void pairedFiguresNeedAsManyRoundsAndNoZeroToDivideBy() {
		assertThatIllegalArgumentException().isThrownBy(() -> Spread.paired(Spread.of(1, 2), Spread.of(1, 2, 3)))
			.withMessage("Paired figures need as many rounds each, were 2 and 3");
		assertThatIllegalArgumentException().isThrownBy(() -> Spread.paired(Spread.of(1, 2), Spread.of(1, 0)))
			.withMessage("Round 2 of the denominator is zero");
	}

}
