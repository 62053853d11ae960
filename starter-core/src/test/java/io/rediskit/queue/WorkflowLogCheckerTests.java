package io.rediskit.queue;

import java.util.List;
import java.util.Set;

import io.rediskit.queue.DeliveryLogChecker.Log;
import io.rediskit.queue.WorkflowLogChecker.Flow;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link WorkflowLogChecker} finds what it is there to find. */
class WorkflowLogCheckerTests {

	static final List<Flow> FLOW = List.of(new Flow("p", List.of("c1", "c2"), 3));

	static final Set<String> ACKED = Set.of("p", "c1", "c2", "b:complete");

	@Test
	void aCorrectRunHasNoViolation() {
		Log log = new Log(List.of("D c1 1 10", "a c1 11", "A c1", "D c2 1 12", "a c2 13", "A c2", "D p 1 20",
				"P p 2 3", "a p 21", "A p", "D b-1 1 22", "X b-1", "D b:complete 1 23", "a b:complete 24",
				"A b:complete"), false);
		assertThat(WorkflowLogChecker.check(FLOW, ACKED, Set.of("b-1"), List.of(log))).isEmpty();
	}

	@Test
	void aParentStartedBeforeItsLastChildsAckIsOne() {
		Log first = new Log(List.of("D c1 1 10", "a c1 11", "A c1", "D c2 1 12", "a c2 30", "A c2"), false);
		Log second = new Log(List.of("D p 1 20", "P p 2 3", "a p 21", "A p", "D b:complete 1 23", "a b:complete 24",
				"A b:complete"), false);
		assertThat(WorkflowLogChecker.check(FLOW, ACKED, Set.of(), List.of(first, second)))
			.containsExactly("parent p started before child c2 finished");
	}

	@Test
	void aStaleAckDoesNotCountAndAWrongReadingOrASecondCallbackIsOne() {
		Log log = new Log(List.of("D c1 1 10", "a c1 11", "A c1", "D c2 1 12", "a c2 13", "A c2", "D c1 2 14",
				"a c1 40", "S c1", "D p 1 20", "P p 1 1", "a p 21", "A p", "D b:complete 1 23", "a b:complete 24",
				"A b:complete", "D b:complete 1 25", "a b:complete 26", "A b:complete"), false);
		assertThat(WorkflowLogChecker.check(FLOW, ACKED, Set.of(), List.of(log))).contains(
				"parent p read 1 1 of its children",
				"b:complete was delivered twice as delivery 1 (a claim applied twice)")
			.noneMatch((violation) -> violation.contains("before child c1"));
	}

}
