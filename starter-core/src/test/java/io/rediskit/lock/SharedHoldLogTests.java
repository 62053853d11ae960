package io.rediskit.lock;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The checker of the read-write tests catches what it must, so that its silence means something. */
class SharedHoldLogTests {

	@Test
	void overlappingReadsAndSeparateWritesPass() {
		SharedHoldLog log = new SharedHoldLog();
		log.read(0, 10, 1);
		log.read(5, 15, 2);
		log.write(20, 30, 3);
		log.read(31, 40, 4);
		assertThat(log.violations()).isEmpty();
		assertThat(log.readsOverlapped()).isTrue();
	}

	@Test
	void aWriteBesideAReadIsCaught() {
		SharedHoldLog log = new SharedHoldLog();
		log.read(0, 10, 1);
		log.write(9, 20, 2);
		assertThat(log.violations()).singleElement().asString().contains("overlapped read");
	}

	@Test
	void aWriteBesideAWriteIsCaught() {
		SharedHoldLog log = new SharedHoldLog();
		log.write(0, 10, 1);
		log.write(10, 20, 2);
		assertThat(log.violations()).isNotEmpty();
	}

	@Test
	void aWriterTokenNotAboveAnEarlierHoldIsCaught() {
		SharedHoldLog log = new SharedHoldLog();
		log.read(0, 10, 5);
		log.write(11, 20, 4);
		assertThat(log.violations()).singleElement().asString().contains("not above");
	}

}
