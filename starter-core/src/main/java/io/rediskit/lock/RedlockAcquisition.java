package io.rediskit.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.rediskit.lock.LockListener.AcquireResult;
import org.jspecify.annotations.Nullable;

/**
 * One call's wait for a lock of the {@link QuorumEngine}, as the published Redlock algorithm runs it. Each attempt is a round
 * sent to all nodes at once ({@link RedlockNodes#acquire}), every reply waited for at most the node timeout. The
 * lock is held when a majority took it and the round left a positive validity
 * ({@link RedlockSpec#validity}); its fencing token is the highest token of that majority, which is then stored
 * on those nodes ({@link RedlockNodes#raiseFence}) so that any later majority, which shares a node with this one,
 * hands out a higher token. A failed attempt releases on every node, including those that did not answer. A
 * round in which too few nodes answered to ever make a majority ends the wait with the outage; otherwise the next
 * attempt comes after the retry delay plus a random jitter, until the wait time runs out.
 * <p>
 * {@link #run(boolean)} waits on the calling thread; {@link #start()} waits without one, its pauses on the
 * registry's scheduler.
 */
final class RedlockAcquisition extends LockWait {

	private final QuorumEngine engine;

	/** A round of {@link #start()} is in flight: it, not a cancellation, ends the wait. Guarded by this. */
	private boolean roundInFlight;

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
		boolean interrupted = false;
		try {
			while (true) {
				if (interruptible && Thread.interrupted()) {
					report(AcquireResult.INTERRUPTED);
					throw new InterruptedException();
				}
				// An attempt is two rounds at most, each bounded whatever the nodes do; the wait is bounded even so,
				// and fails rather than hangs should a completion be lost.
				Round round = LockScripts.uninterruptibly(
						() -> this.engine.nodes.await(attempt(), "acquisition of '" + this.lock.name() + "'"));
				if (round.hold() != null) {
					report(AcquireResult.ACQUIRED);
					return round.hold();
				}
				if (round.failure() != null) {
					report(AcquireResult.ERROR);
					throw round.failure();
				}
				long pause = pauseNanos();
				if (pause < 0) {
					report(AcquireResult.TIMEOUT);
					return null;
				}
				try {
					TimeUnit.NANOSECONDS.sleep(pause);
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
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Waits without a thread. Cancelling the returned stage ends the wait, reported as
	 * {@link AcquireResult#INTERRUPTED}: at once between rounds, else when the round in flight ends; a lock that
	 * round took is released on every node and never reported as acquired.
	 * @return the lease; exceptionally with {@link LockNotAcquiredException} when the wait time ran out, with
	 * the outage when too few nodes answered, with {@link IllegalStateException} when the registry stopped
	 */
	CompletionStage<Lease> start() {
		CompletableFuture<Lease> result = new CompletableFuture<>();
		Runnable onStop = () -> fail(result, AcquireResult.ERROR,
				new IllegalStateException("The Redlock registry stopped while waiting for lock '" + this.lock.name()
						+ "'"));
		this.parts.background().onStop(onStop);
		result.whenComplete((lease, failure) -> {
			this.parts.background().removeOnStop(onStop);
			if (result.isCancelled()) {
				cancelled();
			}
		});
		next(result);
		return result;
	}

	/**
	 * The caller cancelled: the wait ends now unless a round is in flight, which ends it when it replies. A round
	 * that replied after the cancellation completed the stage and before this runs has ended it already, and the
	 * second report is dropped ({@link #report}).
	 */
	private void cancelled() {
		synchronized (this) {
			if (this.roundInFlight) {
				return;
			}
		}
		report(AcquireResult.INTERRUPTED);
	}

	private void next(CompletableFuture<Lease> result) {
		synchronized (this) {
			// Ended (and reported) by a cancellation or a stop during the pause.
			if (result.isDone()) {
				return;
			}
			this.roundInFlight = true;
		}
		attempt().whenComplete((round, failure) -> {
			boolean ended;
			synchronized (this) {
				this.roundInFlight = false;
				ended = result.isDone();
			}
			if (ended) {
				// Cancelled, or the registry stopped, while the round was in flight: nobody takes what it got.
				if (round != null && round.hold() != null) {
					abandon(round.hold());
				}
				if (result.isCancelled()) {
					report(AcquireResult.INTERRUPTED);
				}
			}
			else if (failure != null) {
				fail(result, AcquireResult.ERROR, failure);
			}
			else if (round.hold() != null) {
				if (result.complete(this.lock.lease(round.hold()))) {
					report(AcquireResult.ACQUIRED);
				}
				else {
					// Cancelled (and reported) since the round replied.
					abandon(round.hold());
				}
			}
			else if (round.failure() != null) {
				fail(result, AcquireResult.ERROR, round.failure());
			}
			else {
				long pause = pauseNanos();
				if (pause < 0) {
					fail(result, AcquireResult.TIMEOUT, notAcquired());
					return;
				}
				try {
					this.parts.background().schedule(() -> next(result), pause);
				}
				catch (RuntimeException ex) {
					fail(result, AcquireResult.ERROR, ex);
				}
			}
		});
	}

	/** Ends the wait with a failure, reported unless a cancellation or a stop ended it first. */
	private void fail(CompletableFuture<Lease> result, AcquireResult outcome, Throwable failure) {
		if (result.completeExceptionally(failure)) {
			report(outcome);
		}
	}

	/**
	 * A hold nobody will release: forgotten at once (no renewal, no release report) and freed on every node. It is
	 * marked as releasing first, as a release marks its hold: the watchdog may have picked it for a renewal before
	 * it was forgotten, and that renewal, sent after the release, finds the key gone; it must not report the lease
	 * as lost.
	 */
	private void abandon(LockHold hold) {
		hold.releasing = true;
		this.parts.holds().forget(hold);
		this.engine.nodes.releaseQuietly(this.lock.keys(), this.owner);
	}

	/** One round on all nodes. */
	CompletionStage<Round> attempt() {
		long started = System.nanoTime();
		RedlockNodes nodes = this.engine.nodes;
		LockScripts.Keys keys = this.lock.keys();
		String requestId = this.parts.holds().nextRequestId();
		return nodes.acquire(keys, this.owner, this.leaseMillis, requestId).thenCompose((replies) -> {
			List<RedlockNodes.Node> acquired = new ArrayList<>();
			long token = 0;
			int refused = 0;
			int failed = 0;
			RuntimeException failure = null;
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
							new RedlockNodes.Tally(acquired.size(), refused, failed, failure), replies)));
				}
				return CompletableFuture.completedFuture(Round.BUSY);
			}
			long chosen = token;
			return nodes.raiseFence(keys, chosen, acquired).thenApply((raised) -> held(started, chosen, raised));
		});
	}

	private Round held(long started, long token, int raised) {
		long now = System.nanoTime();
		Duration validity = this.engine.spec.validity(Duration.ofMillis(this.leaseMillis), Duration.ofNanos(now - started));
		if (raised >= this.engine.nodes.quorum() && !validity.isNegative() && !validity.isZero()) {
			return new Round(this.parts.holds().acquired(this.lock, this.owner, token, 1, this.leaseMillis,
					this.watchdog, started, now + validity.toNanos()), null);
		}
		// The round took longer than the lease allows, or the token did not reach a majority: not held.
		this.engine.nodes.releaseQuietly(this.lock.keys(), this.owner);
		return Round.BUSY;
	}

	/** @return the pause before the next attempt, or {@code -1} when the wait time has run out */
	private long pauseNanos() {
		if (this.waitNanos == 0) {
			return -1;
		}
		RedlockSpec spec = this.engine.spec;
		long jitter = spec.retryJitter().toNanos();
		long pause = spec.retryDelay().toNanos() + ((jitter > 0) ? ThreadLocalRandom.current().nextLong(jitter + 1) : 0);
		if (this.waitNanos < 0) {
			return pause;
		}
		long left = remainingNanos();
		return (left <= 0) ? -1 : Math.min(pause, left);
	}

	/**
	 * The outcome of one round: held, or an outage that ends the wait, or neither (another owner holds a
	 * majority, or the round took too long).
	 */
	record Round(@Nullable LockHold hold, @Nullable RuntimeException failure) {

		static final Round BUSY = new Round(null, null);

	}

}
