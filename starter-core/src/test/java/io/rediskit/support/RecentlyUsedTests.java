package io.rediskit.support;

import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The handles a registry lists: bounded, the least recently handed out forgotten first, sorted by name. */
class RecentlyUsedTests {

	@Test
	void keepsTheLastHandleOfEachNameSortedByName() {
		RecentlyUsed<String> recent = new RecentlyUsed<>();
		recent.remember("b", "b1");
		recent.remember("a", "a1");
		recent.remember("b", "b2");
		assertThat(recent.sorted()).containsExactly("a1", "b2");
	}

	@Test
	void forgetsTheLeastRecentlyHandedOutBeyondTheBound() {
		RecentlyUsed<String> recent = new RecentlyUsed<>();
		IntStream.range(0, RecentlyUsed.MAX).forEach((i) -> recent.remember("n" + i, "h" + i));
		recent.remember("n0", "h0 again");
		recent.sorted(); // listing is not a use: it must not change what is forgotten next
		recent.remember("new", "h-new");
		assertThat(recent.sorted()).hasSize(RecentlyUsed.MAX).contains("h0 again", "h-new").doesNotContain("h1");
	}

}
