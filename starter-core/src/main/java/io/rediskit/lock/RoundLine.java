package io.rediskit.lock;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

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
 * pauses as a waiter of another process. When a hold of this process on the name ends, the first waiter is woken
 * to send its round at once ({@link #released}), so that threads of one process hand the lock over without a
 * pause; but a streak of such hand-offs lasts at most {@link #STREAK}: the release that ends it wakes nobody, and
 * the waiters of other processes, which poll, get a pause in which the lock is free.
 */
final class RoundLine {

	/** The longest run of back-to-back hand-offs within this process before one release wakes nobody. */
	static final Duration STREAK = Duration.ofSeconds(1);

	private final Map<String, Line> lines = new HashMap<>();

	/** The waiters of one name and its streak of hand-offs; guarded by the map. */
	private static final class Line {

		final ArrayDeque<Turn> turns = new ArrayDeque<>();

		/** When the current streak of woken hand-offs began; meaningful while {@link #streaking}. */
		long streakStartedNanos;

		boolean streaking;

	}

	/**
	 * Joins the line of a name.
	 * @return the caller's turn; {@link Turn#leave()} it whatever happens
	 */
	Turn join(String name) {
		Turn turn = new Turn(name);
		boolean first;
		synchronized (this.lines) {
			ArrayDeque<Turn> line = this.lines.computeIfAbsent(name, (key) -> new Line()).turns;
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
			Line line = this.lines.get(name);
			return (line != null) ? line.turns.size() : 0;
		}
	}

	/**
	 * A hold of this process on the name ended: wakes the first waiter, unless the streak of such wake-ups has
	 * lasted {@link #STREAK}, which this release ends.
	 */
	void released(String name) {
		Turn first;
		synchronized (this.lines) {
			Line line = this.lines.get(name);
			first = (line != null) ? line.turns.peekFirst() : null;
			if (first == null) {
				return;
			}
			long now = System.nanoTime();
			if (!line.streaking) {
				line.streaking = true;
				line.streakStartedNanos = now;
			}
			else if (now - line.streakStartedNanos >= STREAK.toNanos()) {
				line.streaking = false;
				return;
			}
		}
		first.wake.get().complete(null);
	}

	private void leave(Turn turn) {
		Turn next = null;
		synchronized (this.lines) {
			Line entry = this.lines.get(turn.name);
			if (entry == null) {
				return;
			}
			ArrayDeque<Turn> line = entry.turns;
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

		/** Completed by a release of this process; replaced once the waiter took it ({@link #woken()}). */
		private final AtomicReference<CompletableFuture<Void>> wake = new AtomicReference<>(new CompletableFuture<>());

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

		/** @return completes when a release of this process wakes this waiter, or has done so since the last round */
		CompletionStage<Void> wake() {
			return this.wake.get();
		}

		/** The wake-up was taken: the next one is a new release's. */
		void woken() {
			CompletableFuture<Void> current = this.wake.get();
			if (current.isDone()) {
				this.wake.compareAndSet(current, new CompletableFuture<>());
			}
		}

		/**
		 * Sleeps on the calling thread for a pause, or until a release of this process wakes this waiter.
		 * @throws InterruptedException if interrupted while sleeping
		 */
		void pause(long nanos) throws InterruptedException {
			try {
				this.wake.get().get(nanos, TimeUnit.NANOSECONDS);
			}
			catch (TimeoutException ex) {
				// The pause ran out.
			}
			catch (ExecutionException ex) {
				throw new IllegalStateException("A wake-up is never completed exceptionally", ex);
			}
			woken();
		}

		/** Leaves the line, first or not, and hands the turn on; once is enough, more are ignored. */
		void leave() {
			RoundLine.this.leave(this);
		}

	}

}
