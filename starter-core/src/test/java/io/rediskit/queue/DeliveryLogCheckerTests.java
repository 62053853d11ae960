package io.rediskit.queue;

import java.util.List;

import io.rediskit.queue.DeliveryLogChecker.Log;
import io.rediskit.queue.DeliveryLogChecker.Report;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The checker of queue runs, itself tested on good and bad logs. */
class DeliveryLogCheckerTests {

	@Test
	void aCleanRunPasses() {
		Report report = DeliveryLogChecker.check(List.of("x", "y"),
				List.of(new Log(List.of("D x 1", "a x", "A x"), false), new Log(List.of("D y 1", "a y", "A y"), false)));
		assertThat(report.ok()).as(report.violations().toString()).isTrue();
		assertThat(report.delivered()).isEqualTo(2);
		assertThat(report.redelivered()).isEmpty();
	}

	@Test
	void aRedeliveryAfterACrashOrAStaleAckPasses() {
		Report report = DeliveryLogChecker.check(List.of("x", "y", "z"), List.of(
				new Log(List.of("D x 1", "D y 1", "a y", "D z 1", "a z", "A z", "D q"), true),
				new Log(List.of("D x 2", "a x", "S x", "D x 3", "a x", "A x"), false)));
		// y's ack was asked for just before the kill: applied or not, it is not lost, and it was not redelivered.
		assertThat(report.ok()).as(report.violations().toString()).isTrue();
		assertThat(report.redelivered()).containsExactly("x");
	}

	@Test
	void aLostMessageFails() {
		Report report = DeliveryLogChecker.check(List.of("x", "y"), List.of(new Log(List.of("D x 1", "a x", "A x"), false)));
		assertThat(report.violations()).containsExactly("lost: y was never delivered");
	}

	@Test
	void aMessageDeliveredButNeverAckedFails() {
		Report report = DeliveryLogChecker.check(List.of("x"), List.of(new Log(List.of("D x 1"), true)));
		assertThat(report.violations()).containsExactly("lost: x was never acknowledged");
	}

	@Test
	void aDuplicateWithoutACrashFails() {
		Report report = DeliveryLogChecker.check(List.of("x"), List.of(new Log(List.of("D x 1", "a x", "A x"), false),
				new Log(List.of("D x 2", "a x", "A x"), false)));
		assertThat(report.violations()).contains("x was acknowledged 2 times",
				"x was delivered again after delivery 1, which was acknowledged");
	}

	@Test
	void aClaimAppliedTwiceFails() {
		Report report = DeliveryLogChecker.check(List.of("x"), List.of(new Log(List.of("D x 1"), true),
				new Log(List.of("D x 1", "a x", "A x"), false)));
		assertThat(report.violations()).contains("x was delivered twice as delivery 1 (a claim applied twice)");
	}

	@Test
	void anUnknownIdOrAMalformedLineFails() {
		Report report = DeliveryLogChecker.check(List.of("x"), List.of(new Log(List.of("D x 1", "a x", "A x", "D w 1",
				"A v", "garbage"), false)));
		assertThat(report.violations()).contains("delivered an id never enqueued: w", "log 0: 'A v' without a delivery",
				"log 0: malformed line 'garbage'");
	}

}
