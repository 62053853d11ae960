package io.rediskit.autoconfigure.reactive;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The overlap checker finds what it is there to find. */
class OverlapCheckerTests {

	@Test
	void aSoundLogHasNoProblems() {
		assertThat(OverlapChecker.problems(List.of("enter a", "exit a", "enter b", "exit b"))).isEmpty();
	}

	@Test
	void twoHoldersInsideAtOnceAreReported() {
		assertThat(OverlapChecker.problems(List.of("enter a", "enter b", "exit a", "exit b"))).hasSize(3)
			.first()
			.asString()
			.contains("b entered while a was inside");
	}

	@Test
	void aHolderThatNeverLeftIsReported() {
		assertThat(OverlapChecker.problems(List.of("enter a", "exit a", "enter b"))).containsExactly("b never left");
	}

}
