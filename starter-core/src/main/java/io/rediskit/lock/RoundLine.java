package io.rediskit.lock;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The waiters of one {@link RedlockRegistry} for each lock name, in arrival order: only the first of a name sends
 * acquisition rounds, the others wait in this process for their turn. Without it every waiting thread of every
 * process sends its own rounds, and on a contended name each node is nearly always held by the vote of some
 * losing round: measured with 24 waiters in two processes (16 and 8), 16 of 115,000 rounds won in two minutes,
 * every node held by a different waiter at almost every sample. With the line the rounds on one name are at
 * most one per process, whatever the number of threads, so the split votes are between processes only, which the
 * random pause between attempts separates.
 * <p>
 * The first waiter keeps sending rounds while another thread of this process holds the lock, on the same
 * pauses as a waiter of another process: a release here gives this process no head start over the others.
 */
final class RoundLine {

	private final Map<String, ArrayDeque<Turn>> lines = new HashMap<>();

	/**
	 * Joins the line of a name.
	 * @return the caller's turn; {@link Turn#leave()} it whatever happens
	 */
	Turn join(String name) {
		Turn turn = new Turn(name);
		boolean first;
		synchronized (this.lines) {
			ArrayDeque<Turn> line = this.lines.computeIfAbsent(name, (key) -> new ArrayDeque<>());
			first = line.isEmpty();
			line.addLast(turn);
		}
		if (first) {
			turn.front.complete(null);
		}
		return turn;
	}

	/** @return how many waiters of this registry wait for the name, the one sending rounds included */
	int waiting(String name) {
		synchronized (this.lines) {
			ArrayDeque<Turn> line = this.lines.get(name);
			return (line != null) ? line.size() : 0;
		}
	}

	private void leave(Turn turn) {
		Turn next = null;
		synchronized (this.lines) {
			ArrayDeque<Turn> line = this.lines.get(turn.name);
			if (line == null) {
				return;
			}
			boolean wasFirst = line.peekFirst() == turn;
			if (!line.remove(turn)) {
				return;
			}
			if (line.isEmpty()) {
				this.lines.remove(turn.name);
			}
			else if (wasFirst) {
				next = line.peekFirst();
			}
		}
		// Outside the monitor: the next waiter's continuation may run on this thread.
		if (next != null) {
			next.front.complete(null);
		}
	}

	/** One waiter's place in the line of a name. */
	final class Turn {

		private final String name;

		private final CompletableFuture<Void> front = new CompletableFuture<>();

		private Turn(String name) {
			this.name = name;
		}

		/** @return completes when this waiter is first and may send rounds */
		CompletionStage<Void> front() {
			return this.front;
		}

		boolean isFront() {
			return this.front.isDone();
		}

		/**
		 * Waits on the calling thread until this waiter is first.
		 * @param nanos the longest wait, negative for no bound
		 * @return whether it is first; {@code false} when the wait ran out
		 * @throws InterruptedException if interrupted while waiting
		 */
		boolean awaitFront(long nanos) throws InterruptedException {
			try {
				if (nanos < 0) {
					this.front.get();
				}
				else {
					this.front.get(nanos, TimeUnit.NANOSECONDS);
				}
				return true;
			}
			catch (TimeoutException ex) {
				return false;
			}
			catch (ExecutionException ex) {
				throw new IllegalStateException("A turn is never completed exceptionally", ex);
			}
		}

		/** Leaves the line, first or not, and hands the turn on; once is enough, more are ignored. */
		void leave() {
			RoundLine.this.leave(this);
		}

	}

}
