package io.rediskit.id;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The checker itself, on bad input: it must see what it is there to see. */
class IdCheckerTests {

	@Test
	void findsIdsHandedOutTwiceAcrossAndWithinSources() {
		assertThat(IdChecker.duplicates(List.of(new long[] { 1, 2, 3 }, new long[] { 4, 2, 9 }, new long[] { 9 })))
			.containsExactly(2L, 9L);
		assertThat(IdChecker.duplicates(List.of(new long[] { 5, 5 }))).containsExactly(5L);
		assertThat(IdChecker.duplicates(List.of(new long[] { 1, 3 }, new long[] { 2, 4 }))).isEmpty();
	}

	@Test
	void findsSourcesWhoseIdsDidNotIncrease() {
		assertThat(IdChecker.notIncreasing(List.of(new long[] { 1, 2, 3 }, new long[] { 7, 6 }, new long[] { 4, 4 })))
			.containsExactly("source 1 got 6 after 7", "source 2 got 4 after 4");
		assertThat(IdChecker.notIncreasing(List.of(new long[] { 1, 10, 11 }))).isEmpty();
	}

}
