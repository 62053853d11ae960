package io.rediskit.benchmarks.curves;

import java.util.List;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The sizes of the cost curves, as the lead sets them for a full run and a smoke run.
 */
class CurveSizesTests {

	@Test
	void defaultsAreTheIssuesSizes() {
		CurveSizes sizes = CurveSizes.from(new Properties());
		assertThat(sizes.areas()).containsExactly("ratelimit", "geo", "queue", "bloom", "keys");
		assertThat(sizes.limits()).containsExactly(10L, 1_000L, 100_000L);
		assertThat(sizes.geoMembers()).containsExactly(100_000L, 1_000_000L, 10_000_000L);
		assertThat(sizes.queueWaiting()).containsExactly(10_000L, 100_000L, 1_000_000L);
		assertThat(sizes.bloomShardBits()).containsExactly(1_000_000L, 100_000_000L);
	}

	@Test
	void smokePresetShrinksEverySizeAndAGivenSizeStillWins() {
		Properties properties = properties("preset", "smoke", "geo-members", "500,5_000", "areas", "keys, geo");
		CurveSizes sizes = CurveSizes.from(properties);
		assertThat(sizes.geoMembers()).containsExactly(500L, 5_000L);
		assertThat(sizes.queueWaiting()).allSatisfy((size) -> assertThat(size).isLessThan(10_000L));
		assertThat(sizes.keys()).allSatisfy((size) -> assertThat(size).isLessThan(100_000L));
		assertThat(sizes.areas()).isEqualTo(List.of("keys", "geo"));
	}

	@Test
	void rejectsSizesThatAreNotAscendingNamingTheProperty() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> CurveSizes.from(properties("queue-waiting", "1000,100")))
			.withMessageContaining("rediskit.benchmark.curves.queue-waiting")
			.withMessageContaining("ascending");
		assertThatIllegalArgumentException().isThrownBy(() -> CurveSizes.from(properties("limits", "ten")))
			.withMessageContaining("rediskit.benchmark.curves.limits");
	}

	@Test
	void rejectsAnUnknownAreaOrPreset() {
		assertThatIllegalArgumentException().isThrownBy(() -> CurveSizes.from(properties("areas", "geo,lock")))
			.withMessageContaining("rediskit.benchmark.curves.areas");
		assertThatIllegalArgumentException().isThrownBy(() -> CurveSizes.from(properties("preset", "tiny")))
			.withMessageContaining("rediskit.benchmark.curves.preset");
	}

	private static Properties properties(String... namesAndValues) {
		Properties properties = new Properties();
		for (int i = 0; i < namesAndValues.length; i += 2) {
			properties.setProperty(CurveSizes.PREFIX + namesAndValues[i], namesAndValues[i + 1]);
		}
		return properties;
	}

}
