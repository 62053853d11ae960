package io.rediskit.lock;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link HoldLog} finds what it must find, so that its silence in the lock contract means something. */
class HoldLogTests {

	@Test
	void exclusiveHoldsWithIncreasingTokensPass() {
		HoldLog log = new HoldLog();
		log.record(30, 40, 3);
		log.record(10, 20, 1);
		log.record(21, 29, 2);
		assertThat(log.violations()).isEmpty();
	}

	@Test
	void findsAnOverlap() {
		HoldLog log = new HoldLog();
		log.record(10, 20, 1);
		log.record(15, 30, 2);
		assertThat(log.violations()).singleElement().asString().contains("entered before");
	}

	@Test
	void findsAHoldThatStartsAsTheOtherEnds() {
		HoldLog log = new HoldLog();
		log.record(10, 20, 1);
		log.record(20, 30, 2);
		assertThat(log.violations()).hasSize(1);
	}

	@Test
	void findsATokenThatDidNotIncrease() {
		HoldLog log = new HoldLog();
		log.record(10, 20, 5);
		log.record(21, 30, 5);
		log.record(31, 40, 4);
		assertThat(log.violations()).hasSize(2).allMatch((violation) -> violation.contains("not above"));
	}

}
