package io.rediskit.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.observation.Observation;
import io.rediskit.support.CallerEnds;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

/**
 * One call's wait for a lock of the {@link QuorumEngine}, as the published Redlock algorithm runs it. Each attempt is a round
 * sent to all nodes at once ({@link RedlockNodes#acquire}), every reply waited for at most the node timeout. The
 * lock is held when a majority took it and the round left a positive validity
 * ({@link RedlockSpec#validity}); its fencing token is the highest token of that majority, which is then stored
 * on those nodes ({@link RedlockNodes#raiseFence}) so that any later majority, which shares a node with this one,
 * hands out a higher token. A failed attempt releases on every node, including those that did not answer. A
 * round in which too few nodes answered to ever make a majority ends the wait with the outage; otherwise the next
 * attempt comes after the retry delay plus a random jitter, until the wait time runs out. The jitter doubles for
 * each round in a row whose votes were split between waiters (no owner refused a majority), up to
 * {@link #MAX_JITTER_DOUBLINGS} times.
 * <p>
 * A wait that may retry first takes its turn in the engine's {@link RoundLine}: the waiters of one registry for
 * one name send rounds one at a time, in arrival order, so that their own votes never split the nodes between
 * them. A single attempt (no wait) sends its round at once.
 * <p>
 * {@link #run(boolean)} waits on the calling thread; {@link #start()} waits without one, its pauses on the
 * registry's scheduler.
 */
final class RedlockAcquisition extends LockWait {

	private final QuorumEngine engine;

	/** The most times the random part of the pause doubles after split rounds in a row: up to 8 times as long. */
	static final int MAX_JITTER_DOUBLINGS = 3;

	/** This wait's place in the line of its name, when it may retry; set by {@link #start()}. */
	private volatile RoundLine.@Nullable Turn turn;

	/** Rounds in a row whose votes were split; written by one round at a time. */
	private int splitsInARow;

	// The fields below are guarded by this.

	/** A round of {@link #start()} is in flight: it, not the caller's end of the stage, ends the wait. */
	private boolean roundInFlight;

	/**
	 * The wait of {@link #start()} ended, or its end was decided: the wait hands its end over (a grant, a failure,
	 * a timeout, a stop), or the caller ended the stage, and the round in flight, if any, reports it.
	 */
	private boolean ended;

	/** The caller's end of the stage came first: the round in flight, if any, reports it. */
	private boolean endedByCaller;

	/** The pause before the next round, or the end of the wait for a turn in line: cancelled when the wait ends. */
	private @Nullable ScheduledFuture<?> timer;

	RedlockAcquisition(RedisLock lock, QuorumEngine engine, String owner, @Nullable Long explicitLeaseMillis,
			Duration waitTime, long waitNanos) {
		super(lock, owner, explicitLeaseMillis, waitTime, waitNanos);
		this.engine = engine;
	}

	/**
	 * Waits on the calling thread.
	 * @param interruptible whether an interrupt ends the wait, else it is remembered and restored
	 * @return the hold, or {@code null} when the wait time ran out
	 * @throws InterruptedException if interruptible and interrupted; nothing is held then
	 * @throws org.springframework.dao.DataAccessException if too few nodes answered to make a majority, or
	 * ({@code QueryTimeoutException}) if an attempt did not end within {@link RedlockNodes#callTimeout()}
	 */
	@Nullable LockHold run(boolean interruptible) throws InterruptedException {
		// A single attempt sends its one round at once: it cannot keep the name contended.
		RoundLine.Turn turn = (this.waitNanos == 0) ? null : this.engine.line.join(this.lock.name());
		boolean interrupted = false;
		try {
			while (turn != null) {
				try {
					if (turn.awaitFront((this.waitNanos < 0) ? -1 : Math.max(0, remainingNanos()))) {
						break;
					}
					report(AcquireResult.TIMEOUT);
					return null;
				}
				catch (InterruptedException ex) {
					if (interruptible) {
						report(AcquireResult.INTERRUPTED);
						throw ex;
					}
					interrupted = true;
				}
			}
			while (true) {
				if (interruptible && Thread.interrupted()) {
					report(AcquireResult.INTERRUPTED);
					throw new InterruptedException();
				}
				// An attempt is two rounds at most, each bounded whatever the nodes do; the wait is bounded even so,
				// and fails rather than hangs should a completion be lost.
				Round round = Stages.uninterruptibly(
						() -> this.engine.nodes.await(attempt(), "acquisition of '" + this.lock.name() + "'"));
				if (round.hold() != null) {
					report(AcquireResult.ACQUIRED);
					return round.hold();
				}
				if (round.failure() != null) {
					report(AcquireResult.ERROR);
					throw round.failure();
				}
				long pause = pauseNanos(round);
				if (pause < 0) {
					report(AcquireResult.TIMEOUT);
					return null;
				}
				try {
					if (turn != null) {
						turn.pause(pause);
					}
					else {
						TimeUnit.NANOSECONDS.sleep(pause);
					}
				}
				catch (InterruptedException ex) {
					if (interruptible) {
						report(AcquireResult.INTERRUPTED);
						throw ex;
					}
					interrupted = true;
				}
			}
		}
		finally {
			if (turn != null) {
				turn.leave();
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Waits without a thread. The caller ending the returned stage itself, whichever way (a cancel,
	 * {@code complete}, its own deadline through {@code orTimeout}: {@link CallerEnds#whenCallerEnds}), ends the
	 * wait, reported as the caller's stage saw it ({@link LockHolds#endedByCaller}): at once between rounds (the
	 * pause cancelled, the line left), else when the round in flight ends; a lock that round took is released on
	 * every node and never reported as acquired.
	 * @return the lease; exceptionally with {@link LockNotAcquiredException} when the wait time ran out, with
	 * the outage when too few nodes answered, with {@link IllegalStateException} when the registry stopped
	 */
	CompletionStage<Lease> start() {
		CompletableFuture<Lease> result = new CompletableFuture<>();
		Runnable onStop = () -> fail(result, AcquireResult.ERROR,
				new IllegalStateException("The Redlock registry stopped while waiting for lock '" + this.lock.name()
						+ "'"));
		this.parts.background().onStop(onStop);
		RoundLine.Turn turn = (this.waitNanos == 0) ? null : this.engine.line.join(this.lock.name());
		this.turn = turn;
		CallerEnds.whenCallerEnds(result, () -> {
			this.parts.background().removeOnStop(onStop);
			if (turn != null) {
				turn.leave();
			}
			callerEnded(result);
		});
		if (turn == null || turn.isFront()) {
			next(result);
			return result;
		}
		if (this.waitNanos > 0) {
			try {
				ScheduledFuture<?> timeout = this.parts.background()
					.schedule(() -> fail(result, AcquireResult.TIMEOUT, notAcquired()), Math.max(0, remainingNanos()));
				timer(result, timeout);
				turn.front().thenRun(() -> timeout.cancel(false));
			}
			catch (RuntimeException ex) {
				fail(result, AcquireResult.ERROR, ex);
				return result;
			}
		}
		turn.front().thenRun(() -> next(result));
		return result;
	}

	/**
	 * The stage completed: when the caller ended it (the wait had not), the wait ends now unless a round is in
	 * flight, which ends it when it replies; the pause or the wait for a turn is cancelled either way.
	 */
	private void callerEnded(CompletableFuture<Lease> result) {
		ScheduledFuture<?> pending;
		boolean now;
		synchronized (this) {
			pending = this.timer;
			this.timer = null;
			now = callersEnd(result) && !this.roundInFlight;
		}
		if (pending != null) {
			pending.cancel(false);
		}
		if (now) {
			report(LockHolds.endedByCaller(result));
		}
	}

	/**
	 * Called under this. A stage that the wait did not complete was completed by its caller, whose end may be
	 * seen here before the stage's callback runs (the caller's own callbacks run first): the wait ends with it.
	 * @return whether the caller ended the wait
	 */
	private boolean callersEnd(CompletableFuture<Lease> result) {
		if (!this.ended && result.isDone()) {
			this.ended = true;
			this.endedByCaller = true;
		}
		return this.endedByCaller;
	}

	/** Keeps the timer of a pause, to cancel when the wait ends; cancels it at once if it ended already. */
	private void timer(CompletableFuture<Lease> result, ScheduledFuture<?> scheduled) {
		boolean over;
		synchronized (this) {
			over = this.ended || result.isDone();
			if (!over) {
				this.timer = scheduled;
			}
		}
		if (over) {
			scheduled.cancel(false);
		}
	}

	private void next(CompletableFuture<Lease> result) {
		boolean callers;
		boolean send;
		synchronized (this) {
			callers = callersEnd(result);
			send = !this.ended;
			if (send) {
				this.roundInFlight = true;
				this.timer = null;
			}
		}
		if (callers) {
			// Ended by the caller during the pause: reported once, here or by its callback.
			report(LockHolds.endedByCaller(result));
		}
		if (!send) {
			// Ended by the caller or a stop during the pause.
			return;
		}
		attempt().whenComplete((round, failure) -> {
			boolean endedMeanwhile;
			boolean reportCallersEnd;
			synchronized (this) {
				this.roundInFlight = false;
				reportCallersEnd = callersEnd(result);
				endedMeanwhile = this.ended;
				if (!endedMeanwhile && failure == null && round.hold() != null) {
					// The grant is handed over: the caller's end, from now on, is decided by the stage.
					this.ended = true;
				}
			}
			if (endedMeanwhile) {
				// The caller ended the stage, or the registry stopped, while the round was in flight: nobody takes
				// what it got. A stop reported already; the caller's end is reported here, as the stage saw it.
				if (round != null && round.hold() != null) {
					abandon(round.hold());
				}
				if (reportCallersEnd) {
					report(LockHolds.endedByCaller(result));
				}
			}
			else if (failure != null) {
				fail(result, AcquireResult.ERROR, failure);
			}
			else if (round.hold() != null) {
				if (this.parts.holds().handOver(result, this.lock.lease(round.hold()), List.of(round.hold()))) {
					report(AcquireResult.ACQUIRED);
				}
				else {
					// Ended by the caller since the round replied: the hold was abandoned, what the round took goes.
					this.engine.nodes.releaseQuietly(this.lock.keys(), this.owner);
					report(LockHolds.endedByCaller(result));
				}
			}
			else if (round.failure() != null) {
				fail(result, AcquireResult.ERROR, round.failure());
			}
			else {
				long pause = pauseNanos(round);
				if (pause < 0) {
					fail(result, AcquireResult.TIMEOUT, notAcquired());
					return;
				}
				try {
					pauseThenNext(result, pause);
				}
				catch (RuntimeException ex) {
					fail(result, AcquireResult.ERROR, ex);
				}
			}
		});
	}

	/**
	 * The next round after the pause, or as soon as a release of this process wakes this waiter, whichever
	 * comes first.
	 */
	private void pauseThenNext(CompletableFuture<Lease> result, long pause) {
		RoundLine.Turn current = this.turn;
		if (current == null) {
			timer(result, this.parts.background().schedule(() -> next(result), pause));
			return;
		}
		AtomicBoolean once = new AtomicBoolean();
		ScheduledFuture<?> timer = this.parts.background().schedule(() -> {
			if (once.compareAndSet(false, true)) {
				current.woken();
				next(result);
			}
		}, pause);
		timer(result, timer);
		current.wake().thenRun(() -> {
			if (once.compareAndSet(false, true)) {
				timer.cancel(false);
				current.woken();
				next(result);
			}
		});
	}

	/**
	 * Ends the wait with a failure, the caller's stage deciding ({@link LockHolds#handOver(CompletableFuture,
	 * Throwable, AcquireResult)}): an end of the caller's that came first is reported as the caller saw it; a stop
	 * or a timeout that came first ended the wait already. A stop while a round is in flight ends the stage at once,
	 * and that round reports nothing more.
	 */
	private void fail(CompletableFuture<Lease> result, AcquireResult outcome, Throwable failure) {
		synchronized (this) {
			if (this.ended) {
				return;
			}
			this.ended = true;
		}
		report(this.parts.holds().handOver(result, failure, outcome));
	}

	/** A hold nobody will release: abandoned ({@link LockHolds#abandon}) and freed on every node. */
	private void abandon(LockHold hold) {
		this.parts.holds().abandon(hold);
		this.engine.nodes.releaseQuietly(this.lock.keys(), this.owner);
	}

	/** One round on all nodes. */
	CompletionStage<Round> attempt() {
		long started = System.nanoTime();
		RedlockNodes nodes = this.engine.nodes;
		LockScripts.Keys keys = this.lock.keys();
		String requestId = this.parts.holds().nextRequestId();
		CompletionStage<List<RedlockNodes.Reply<LockScripts.Attempt>>> sent;
		try (Observation.Scope scope = openScope()) {
			sent = nodes.acquire(keys, this.owner, this.leaseMillis, requestId);
		}
		return sent.thenCompose((replies) -> {
			List<RedlockNodes.Node> acquired = new ArrayList<>();
			long token = 0;
			int refused = 0;
			int failed = 0;
			RuntimeException failure = null;
			Map<String, Integer> refusedBy = new HashMap<>(4);
			for (RedlockNodes.Reply<LockScripts.Attempt> reply : replies) {
				LockScripts.Attempt attempt = reply.value();
				if (attempt == null) {
					failed++;
					failure = (failure != null) ? failure : reply.failure();
				}
				else if (attempt.acquired()) {
					acquired.add(reply.node());
					token = Math.max(token, attempt.fencingToken());
				}
				else {
					refused++;
					if (attempt.holder() != null) {
						refusedBy.merge(attempt.holder(), 1, Integer::sum);
					}
				}
			}
			failed += nodes.silentSuspects(replies);
			if (acquired.size() < nodes.quorum()) {
				// A round decided before every node answered leaves acquisitions in flight: one may still take its
				// node, so the release goes to every node then too (after the acquire, on the same connection).
				if (!acquired.isEmpty() || failed > 0 || replies.size() < nodes.size()) {
					nodes.releaseQuietly(keys, this.owner);
				}
				// An outage when too many nodes failed, counting those known down that the round did not wait for;
				// else the lock is busy and the attempt goes on.
				if (failed > nodes.size() - nodes.quorum()) {
					return CompletableFuture.completedFuture(new Round(null, nodes.unavailable("acquire",
							new RedlockNodes.Tally(acquired.size(), refused, failed, failure), replies), false));
				}
				// Held, when one owner refused a majority; else the votes were split between waiters.
				boolean held = refusedBy.values().stream().anyMatch((count) -> count >= nodes.quorum());
				return CompletableFuture.completedFuture(held ? Round.HELD : Round.SPLIT);
			}
			long chosen = token;
			return nodes.raiseFence(keys, this.owner, chosen, acquired).thenApply((raised) -> held(started, chosen, raised));
		});
	}

	private Round held(long started, long token, int raised) {
		long now = System.nanoTime();
		Duration validity = this.engine.spec.validity(Duration.ofMillis(this.leaseMillis), Duration.ofNanos(now - started));
		if (raised >= this.engine.nodes.quorum() && !validity.isNegative() && !validity.isZero()) {
			return new Round(this.parts.holds().acquired(this.lock, this.owner, token, 1, this.leaseMillis,
					this.watchdog, now + validity.toNanos()), null, false);
		}
		// The round took longer than the lease allows, or the token did not reach a majority: not held.
		this.engine.nodes.releaseQuietly(this.lock.keys(), this.owner);
		return Round.HELD;
	}

	/**
	 * @param round the attempt that did not take the lock
	 * @return the pause before the next attempt, or {@code -1} when the wait time has run out: the retry delay
	 * plus a random part of up to the retry jitter, doubled for each split round in a row up to
	 * {@link #MAX_JITTER_DOUBLINGS} times, so that the waiters of processes whose rounds keep colliding spread
	 * apart
	 */
	private long pauseNanos(Round round) {
		this.splitsInARow = round.split() ? this.splitsInARow + 1 : 0;
		if (this.waitNanos == 0) {
			return -1;
		}
		RedlockSpec spec = this.engine.spec;
		long jitter = spec.retryJitter().toNanos() << Math.min(this.splitsInARow, MAX_JITTER_DOUBLINGS);
		long pause = spec.retryDelay().toNanos() + ((jitter > 0) ? ThreadLocalRandom.current().nextLong(jitter + 1) : 0);
		if (this.waitNanos < 0) {
			return pause;
		}
		long left = remainingNanos();
		return (left <= 0) ? -1 : Math.min(pause, left);
	}

	/**
	 * The outcome of one round: held, or an outage that ends the wait, or neither: the lock is held elsewhere
	 * (one owner refused a majority, or the round took too long), or the votes were split between waiters.
	 */
	record Round(@Nullable LockHold hold, @Nullable RuntimeException failure, boolean split) {

		static final Round HELD = new Round(null, null, false);

		static final Round SPLIT = new Round(null, null, true);

	}

}
