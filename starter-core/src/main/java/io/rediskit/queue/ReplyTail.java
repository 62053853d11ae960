package io.rediskit.queue;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Work that the completions of one reply ask for, run once all of them ran. A batch of acks completes its
 * deliveries one after another on the reply's thread, and each may make room for a claim: a claim sent at the
 * first that makes enough room would take only what is free then and leave the rest to a second claim (two
 * script calls, each with its promote, where one would do). Asked for from within {@link #run}, the claim is sent
 * after the last of the batch, for all the room it made.
 */
final class ReplyTail {

	private static final ThreadLocal<@Nullable List<Runnable>> OPEN = new ThreadLocal<>();

	private ReplyTail() {
	}

	/**
	 * Runs the completions of a reply, then what they asked for through {@link #after}.
	 * @param completions the completions
	 */
	static void run(Runnable completions) {
		if (OPEN.get() != null) {
			completions.run();
			return;
		}
		List<Runnable> tail = new ArrayList<>(1);
		OPEN.set(tail);
		try {
			completions.run();
		}
		finally {
			OPEN.remove();
			// Even after a failing completion: a claim asked for and never sent would leave its poller waiting.
			for (Runnable task : tail) {
				task.run();
			}
		}
	}

	/**
	 * Runs a task once the completions of the reply this thread completes ran, or now if it completes none.
	 * @param task the task
	 */
	static void after(Runnable task) {
		List<Runnable> tail = OPEN.get();
		if (tail != null) {
			tail.add(task);
		}
		else {
			task.run();
		}
	}

}
