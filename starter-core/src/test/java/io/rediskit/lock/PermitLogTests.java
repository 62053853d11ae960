package io.rediskit.lock;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The checker the semaphore's tests rely on catches what it must, and only that. */
class PermitLogTests {

	@Test
	void holdsWithinTheTotalPass() {
		PermitLog log = new PermitLog();
		log.record(0, 10, 2, 1);
		log.record(5, 15, 1, 2);
		log.record(10, 20, 2, 3);
		assertThat(log.maxHeld()).isEqualTo(3);
		assertThat(log.violations(3)).isEmpty();
	}

	@Test
	void catchesMorePermitsThanTheTotalAtOnce() {
		PermitLog log = new PermitLog();
		log.record(0, 10, 2, 1);
		log.record(5, 15, 1, 2);
		log.record(9, 12, 1, 3);
		assertThat(log.violations(3)).containsExactly("4 permits held at once, more than the total 3");
	}

	@Test
	void catchesATokenHandedOutTwice() {
		PermitLog log = new PermitLog();
		log.record(0, 1, 1, 7);
		log.record(2, 3, 1, 7);
		assertThat(log.violations(1)).containsExactly("1 fencing tokens handed out twice");
	}

}
