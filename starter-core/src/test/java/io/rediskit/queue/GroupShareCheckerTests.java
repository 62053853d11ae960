package io.rediskit.queue;

import java.util.List;
import java.util.Map;

import io.rediskit.queue.GroupShareChecker.Handling;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The checker itself: it passes a fair run and catches a starved group and a group over its limit. */
class GroupShareCheckerTests {

	@Test
	void passesAnAlternatingRun() {
		List<Handling> run = List.of(new Handling("a", "a1", 1, 2), new Handling("b", "b1", 3, 4),
				new Handling("a", "a2", 5, 6), new Handling("b", "b2", 7, 8), new Handling("a", "a3", 9, 10));
		assertThat(GroupShareChecker.check(run, 2, Map.of("a", 1, "b", 1))).isEmpty();
	}

	@Test
	void catchesAGroupStarvedBehindAFlood() {
		List<Handling> run = List.of(new Handling("a", "a1", 1, 2), new Handling("a", "a2", 3, 4),
				new Handling("a", "a3", 5, 6), new Handling("b", "b1", 7, 8));
		assertThat(GroupShareChecker.check(run, 2, Map.of())).singleElement().asString().startsWith("b had no start");
	}

	@Test
	void catchesAGroupOverItsLimitButNotOneThatMadeRoomAtTheSameInstant() {
		List<Handling> run = List.of(new Handling("a", "a1", 1, 5), new Handling("a", "a2", 2, 6),
				new Handling("a", "a3", 6, 7));
		assertThat(GroupShareChecker.check(run, 10, Map.of("a", 2))).isEmpty();
		List<Handling> over = List.of(new Handling("a", "a1", 1, 5), new Handling("a", "a2", 2, 6),
				new Handling("a", "a3", 4, 7));
		assertThat(GroupShareChecker.check(over, 10, Map.of("a", 2))).singleElement().asString().contains("over its limit");
	}

}
