package io.rediskit.queue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A task asked for by a reply's completions runs after the last of them, once, on the same thread; outside a
 * reply it runs at once; a failing completion neither loses the tail nor leaves the thread marked as completing
 * (a claim asked for and never sent would leave its poller waiting).
 */
class ReplyTailTests {

	@Test
	void taskAskedForByACompletionRunsAfterTheLast() {
		List<String> order = new ArrayList<>();
		ReplyTail.run(() -> {
			order.add("first");
			ReplyTail.after(() -> order.add("claim"));
			order.add("second");
			order.add("third");
		});
		assertThat(order).containsExactly("first", "second", "third", "claim");
	}

	@Test
	void taskOutsideAReplyRunsAtOnce() {
		List<String> order = new ArrayList<>();
		ReplyTail.after(() -> order.add("claim"));
		order.add("after");
		assertThat(order).containsExactly("claim", "after");
	}

	@Test
	void nestedReplyRunsItsTailWithTheOuterOne() {
		List<String> order = new ArrayList<>();
		ReplyTail.run(() -> {
			ReplyTail.run(() -> ReplyTail.after(() -> order.add("inner's task")));
			order.add("outer's last");
		});
		assertThat(order).containsExactly("outer's last", "inner's task");
	}

	@Test
	void failingCompletionStillRunsTheTailAndLeavesNoReplyOpen() {
		List<String> order = new ArrayList<>();
		assertThatIllegalStateException().isThrownBy(() -> ReplyTail.run(() -> {
			ReplyTail.after(() -> order.add("claim"));
			throw new IllegalStateException("completion failed");
		}));
		assertThat(order).containsExactly("claim");
		ReplyTail.after(() -> order.add("later"));
		assertThat(order).containsExactly("claim", "later");
	}

}
