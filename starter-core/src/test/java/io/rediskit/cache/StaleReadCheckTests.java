package io.rediskit.cache;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The checker of {@link NearCacheTrackingTests} catches what it is there to catch. */
class StaleReadCheckTests {

	@Test
	void aReadOlderThanTheLastArrivedInvalidationIsAViolation() {
		StaleReadCheck check = new StaleReadCheck();
		check.record(3, StaleReadCheck.numberOf("v2"));
		check.record(3, StaleReadCheck.numberOf(null));
		assertThat(check.violations()).hasSize(2);
		assertThat(check.violations().get(0)).contains("returned write 2 after the invalidation of write 3");
	}

	@Test
	void currentAndNewerReadsAreNot() {
		StaleReadCheck check = new StaleReadCheck();
		check.record(3, StaleReadCheck.numberOf("v3"));
		check.record(3, StaleReadCheck.numberOf("v4"));
		check.record(-1, StaleReadCheck.numberOf(null));
		assertThat(check.violations()).isEmpty();
		assertThat(check.reads()).isEqualTo(3);
	}

}
