package io.rediskit.queue;

import java.util.Map;

import io.rediskit.queue.EnqueueResult.Outcome;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link UniqueDeliveryChecker} finds what it must, on bad input made by hand. */
class UniqueDeliveryCheckerTests {

	@Test
	void acceptsOneAddedMessageDeliveredOnceWithItsLastPayload() {
		UniqueDeliveryChecker checker = new UniqueDeliveryChecker();
		checker.enqueued("a", 1, new EnqueueResult("a", Outcome.ENQUEUED));
		checker.enqueued("a", 2, new EnqueueResult("a", Outcome.DUPLICATE));
		checker.enqueued("b", 1, new EnqueueResult("b", Outcome.ENQUEUED));
		checker.enqueued("b", 2, new EnqueueResult("b", Outcome.REPLACED));
		checker.delivered("a", "a", 1);
		checker.delivered("b", "b", 2);
		assertThat(checker.violations(Map.of("a", 1, "b", 1))).isEmpty();
	}

	@Test
	void findsTooManyAddedADoubleDeliveryALostMessageAndAStalePayload() {
		UniqueDeliveryChecker checker = new UniqueDeliveryChecker();
		checker.enqueued("a", 1, new EnqueueResult("a", Outcome.ENQUEUED));
		checker.enqueued("a", 2, new EnqueueResult("a~x", Outcome.ENQUEUED));
		checker.delivered("a", "a", 1);
		checker.delivered("a", "a", 1);
		checker.enqueued("b", 1, new EnqueueResult("b", Outcome.ENQUEUED));
		checker.enqueued("c", 1, new EnqueueResult("c", Outcome.ENQUEUED));
		checker.enqueued("c", 2, new EnqueueResult("c", Outcome.REPLACED));
		checker.delivered("c", "c", 1);
		checker.delivered("d", "d", 1);
		assertThat(checker.violations(Map.of("a", 1, "b", 1, "c", 1))).containsExactlyInAnyOrder(
				"a: 2 added, the mode allows 1", "a: message a delivered more than once",
				"a: message a~x added but never delivered", "b: message b added but never delivered",
				"c: message c delivered with payload 1, not one it was last given [2]",
				"d: message d delivered, but no enqueue added it");
	}

}
