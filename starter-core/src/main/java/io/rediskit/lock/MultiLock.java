package io.rediskit.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.observation.Observation;
import io.rediskit.support.BoundedStop;
import io.rediskit.support.CallerEnds;
import io.rediskit.support.Names;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * Several locks taken as one, all or none, from {@link LockRegistry#getMultiLock(Collection)}: for work that must
 * exclude everyone from several resources at once, such as a transfer between two accounts.
 * <p>
 * <b>How it takes the locks.</b> Each name is the single lock of that name ({@link LockRegistry#getLock(String)}
 * excludes it, and it excludes that lock), so the keys are the lock's, each in its own hash slot. Names whose keys
 * share a hash slot, and on a server that is not a cluster (standalone, Sentinel) all names, are taken by one
 * script ({@code multilock_acquire.lua}) that checks every lock and takes all or none, atomically: {@link
 * #isAtomic()} says whether the whole set is one such step. On Redis Cluster the names fall into several slots,
 * so the set is taken in steps, one script per slot, in one total order (by slot, then by name) that every
 * multi-key lock of every instance follows: a holder only ever waits for a slot above every slot it holds, so two
 * sets that overlap, whatever order their names were given in, can never wait for each other. A step whose
 * lock is busy is retried until the wait runs out, keeping the steps taken; when it runs out, a step fails, the
 * caller ends the stage of {@link #acquireAsync} itself or the registry stops, what was taken is released before the
 * call returns (or the stage fails).
 * <p>
 * <b>Leases.</b> A {@link MultiLease} is one owner's hold on every name. The registry's watchdog renews each
 * name's lease on the same tick, as it renews any lock's; should one of them be lost, the whole set is reported
 * lost ({@link MultiLease#isActive()}, and {@link MultiLease#close()} throws {@link LockLeaseLostException} after
 * freeing the rest). Each name has its own fencing token, the single lock's ({@link MultiLease#fencingToken});
 * pass each resource the token of its name.
 * <p>
 * <b>Limits.</b> A multi-key lease is not reentrant, and a thread that holds one of the names through
 * {@link RedisLock#lock()} waits for itself until the wait runs out. On Cluster the steps are not atomic as a
 * whole: while a set waits for a later slot it holds the earlier ones, which others wait for. A step whose reply is
 * lost (Redis timed out) may still have taken its locks: they are freed by owner, and should the step run after
 * that they stay until their first lease ends. As for every Redis lock, a lease: a pause past it or a failover
 * that loses keys can let two holders overlap, which the fencing tokens let resources detect. There is no
 * Redlock variant.
 * <p>
 * <b>Observations.</b> Each name is waited for and held as the single lock of that name: one
 * {@code rediskit.lock.wait} per name (kind {@code lock}, tagged with the name's group), all ended with the set's
 * outcome ({@code acquired}, {@code timeout}, {@code interrupted} when the caller cancelled, {@code error}, also when
 * the registry stopped), and one {@code rediskit.lock.hold} per name from the step that took it to its release. The
 * outcome is the one the caller's stage saw: a timeout or a failure that the caller's own end of the stage beat is
 * {@code timeout} when the caller ended it with a {@link java.util.concurrent.TimeoutException} (its own deadline),
 * else {@code interrupted}. The holds of steps given back because the set was not acquired (a timeout, a failed
 * step, the caller's end, a stop) end {@code abandoned}, not released: the caller never held the set, as a Redlock
 * hold that no caller took ends abandoned.
 */
public final class MultiLock {

	/** The longest pause between two attempts of a busy step; the wait starts at 1 ms and doubles up to it. */
	static final long MAX_BACKOFF_MILLIS = 32;

	/**
	 * How an acquisition ends that the caller ended itself: its stage is completed already, so neither the failure
	 * nor the outcome is used ({@link LockHolds#endedByCaller} tells the outcome).
	 */
	private static final End CALLERS_END = new End(new CancellationException(), AcquireResult.INTERRUPTED);

	private final List<RedisLock> locks;

	private final List<List<RedisLock>> steps;

	/** The scripts of its own it runs (one acquisition per hash slot, the undo of a step) beside the shell. */
	private final LockScripts scripts;

	private final LockParts parts;

	private final String description;

	MultiLock(List<RedisLock> locks, LockScripts scripts) {
		this.scripts = scripts;
		this.parts = locks.get(0).parts();
		boolean cluster = scripts.isCluster();
		List<RedisLock> ordered = new ArrayList<>(locks);
		Comparator<RedisLock> byName = Comparator.comparing(RedisLock::name);
		ordered.sort(cluster ? Comparator.comparingInt(MultiLock::slot).thenComparing(byName) : byName);
		this.locks = List.copyOf(ordered);
		List<List<RedisLock>> grouped = new ArrayList<>();
		List<RedisLock> step = new ArrayList<>();
		for (RedisLock lock : ordered) {
			if (cluster && !step.isEmpty() && slot(step.get(0)) != slot(lock)) {
				grouped.add(List.copyOf(step));
				step.clear();
			}
			step.add(lock);
		}
		grouped.add(List.copyOf(step));
		this.steps = List.copyOf(grouped);
		this.description = names().toString();
	}

	/**
	 * Checks the names of a set.
	 * @param what what the elements are, as the message says it: {@code names} or {@code keys}
	 * @param data whether the elements are keys (data of any length) rather than names ({@link Names#requireData})
	 * @throws IllegalArgumentException naming {@code what} when there are none, or one is refused or repeated
	 */
	static void requireNames(Collection<String> names, String what, boolean data) {
		Objects.requireNonNull(names, what);
		if (names.isEmpty()) {
			throw new IllegalArgumentException(what + " must not be empty");
		}
		Set<String> seen = new HashSet<>();
		int i = 0;
		for (String name : names) {
			Objects.requireNonNull(name, () -> what + " must not contain null");
			if (!data) {
				Names.requireData("Lock", name);
			}
			else if (name.isEmpty()) {
				throw new IllegalArgumentException(what + " must not contain an empty key");
			}
			if (!seen.add(name)) {
				// The position, not the name: names may be data the application received.
				throw new IllegalArgumentException(what + " must not repeat a name: the one at index " + i
						+ " repeats an earlier one");
			}
			i++;
		}
	}

	private static int slot(RedisLock lock) {
		return ClusterSlotHashUtil.calculateSlot(lock.keys().lock);
	}

	/** @return the full lock names in the order they are taken: by hash slot then name on Cluster, else by name */
	public List<String> names() {
		return this.locks.stream().map(RedisLock::name).toList();
	}

	/**
	 * Whether the whole set is taken by one script, atomically: always on a server that is not a cluster, and on
	 * Cluster when every name's key is in one hash slot.
	 * @return {@code true} for one step, {@code false} for ordered steps, one per hash slot
	 */
	public boolean isAtomic() {
		return this.steps.size() == 1;
	}

	/** @return how many steps (scripts, one per hash slot) an uncontended acquisition takes */
	public int steps() {
		return this.steps.size();
	}

	/**
	 * Takes every lock, waiting up to {@code waitTime}, with the registry's default lease (the watchdog if unset).
	 * @param waitTime how long to wait for all of them; zero for one attempt per step
	 * @return the lease on every name; close it to release them
	 * @throws LockNotAcquiredException if the wait ran out or the thread was interrupted (the interrupt flag is
	 * then set); nothing is held then
	 */
	public MultiLease acquire(Duration waitTime) {
		return acquire(waitTime, null);
	}

	/**
	 * Takes every lock, waiting up to {@code waitTime}.
	 * @param waitTime how long to wait for all of them; zero for one attempt per step
	 * @param leaseTime the lease of each name, not renewed; {@code null} for the registry default (the watchdog
	 * if unset)
	 * @return the lease on every name; close it to release them
	 * @throws LockNotAcquiredException if the wait ran out or the thread was interrupted; nothing is held then
	 */
	public MultiLease acquire(Duration waitTime, @Nullable Duration leaseTime) {
		return tryAcquire(waitTime, leaseTime)
			.orElseThrow(() -> new LockNotAcquiredException(this.description, waitTime, null));
	}

	/**
	 * Like {@link #acquire(Duration, Duration)}, but empty instead of an exception when the wait ran out.
	 * @param waitTime how long to wait for all of them; zero for one attempt per step
	 * @param leaseTime the lease of each name; {@code null} for the registry default
	 * @return the lease, or empty when the wait ran out (nothing is held then)
	 * @throws LockNotAcquiredException if the thread was interrupted (the interrupt flag is then set), once what
	 * the wait took is given back: nothing is held then (should Redis not answer the step in flight, it throws
	 * after 10 s at most, and what that step took is freed by its lease). A set handed over as the interrupt came is
	 * returned, with the interrupt flag set.
	 * @throws IllegalStateException if the registry stopped while the wait went on; nothing is held then
	 */
	public Optional<MultiLease> tryAcquire(Duration waitTime, @Nullable Duration leaseTime) {
		requireArguments(waitTime, leaseTime);
		this.parts.background().ensureRunning();
		Acquisition acquisition = start(waitTime, leaseTime);
		try {
			MultiLease lease = acquisition.result.get();
			// The waits end before a blocking caller goes on: the lease was handed over just before they ended.
			acquisition.settled.join();
			return Optional.of(lease);
		}
		catch (InterruptedException ex) {
			// Cancelling ends the acquisition, which settles once what it took is given back: nothing is held when
			// this throws. A set handed over before the cancel is the caller's, with the interrupt pending, as a
			// single lock handed over as the interrupt comes. Between two attempts the cancel ends it at once; a step
			// in flight ends it when Redis answers it, within the command timeout. The wait for that is bounded all
			// the same, should a reply never come: what such a step took then ends with its lease.
			acquisition.result.cancel(false);
			acquisition.settled.completeOnTimeout(null, BoundedStop.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).join();
			Thread.currentThread().interrupt();
			if (!acquisition.result.isCompletedExceptionally()) {
				return Optional.of(acquisition.result.join());
			}
			throw new LockNotAcquiredException(this.description, waitTime, ex);
		}
		catch (ExecutionException ex) {
			// As for a lease: the waits end before a blocking caller goes on, just after the stage took the failure.
			acquisition.settled.join();
			Throwable cause = ex.getCause();
			if (cause instanceof LockNotAcquiredException && cause.getCause() == null) {
				return Optional.empty();
			}
			throw (cause instanceof RuntimeException runtime) ? runtime : new IllegalStateException(cause);
		}
	}

	/**
	 * Takes every lock without blocking the calling thread; between attempts the wait runs on the registry's
	 * scheduler. Should the caller end the stage itself (a cancel, {@code complete}, its own deadline through
	 * {@code orTimeout}), the wait ends at once and whatever was taken is released; each name's wait is reported as
	 * the stage saw it: {@code timeout} for a stage ended with a {@link java.util.concurrent.TimeoutException},
	 * else {@code interrupted}.
	 * @param waitTime how long to wait for all of them; zero or negative for one attempt per step
	 * @param leaseTime the lease of each name; {@code null} for the registry default (the watchdog if unset)
	 * @return the lease; completed exceptionally with {@link LockNotAcquiredException} when the wait ran out,
	 * with Spring's {@code DataAccessException} when Redis failed, with {@link IllegalStateException} when the
	 * registry stopped, nothing held in any case
	 * @throws IllegalArgumentException at once for a lease out of range
	 */
	public CompletionStage<MultiLease> acquireAsync(Duration waitTime, @Nullable Duration leaseTime) {
		requireArguments(waitTime, leaseTime);
		try {
			this.parts.background().ensureRunning();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return start(waitTime, leaseTime).result;
	}

	private void requireArguments(Duration waitTime, @Nullable Duration leaseTime) {
		Objects.requireNonNull(waitTime, "waitTime");
		if (leaseTime != null) {
			this.parts.engine().requireLease(leaseTime);
		}
	}

	/** Starts an acquisition of arguments checked, on a running registry. */
	private Acquisition start(Duration waitTime, @Nullable Duration leaseTime) {
		Duration lease = (leaseTime != null) ? leaseTime : this.parts.defaultLeaseTime();
		boolean watchdog = lease == null;
		long leaseMillis = watchdog ? this.parts.watchdogTimeout().toMillis() : lease.toMillis();
		long waitNanos = waitTime.isNegative() ? 0 : saturatedNanos(waitTime);
		Acquisition acquisition = new Acquisition(waitTime, waitNanos, leaseMillis, watchdog);
		acquisition.start();
		return acquisition;
	}

	@Override
	public String toString() {
		return "MultiLock" + this.description;
	}

	private static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

	/**
	 * One acquisition of the set: its steps in order, the holds taken so far, and the wait between attempts. It ends
	 * once, by whoever comes first: its own step (the set handed over, a failure, the wait run out), the caller
	 * ending its stage ({@link CallerEnds#whenCallerEnds}) or the registry stopping. The last two end it at once
	 * between two attempts (the retry cancelled, what the steps took given back); a step in flight ends it when it
	 * replies, so that what that step took is given back too.
	 */
	private final class Acquisition {

		final CompletableFuture<MultiLease> result = new CompletableFuture<>();

		private final Duration waitTime;

		private final long started = System.nanoTime();

		private final long waitNanos;

		private final long leaseMillis;

		private final boolean watchdog;

		private final String owner = MultiLock.this.parts.holds().leaseOwner();

		private final List<LockHold> taken = new ArrayList<>();

		/**
		 * The wait of each name, in the order of {@link MultiLock#locks}, as the single lock's of that name: one
		 * {@code rediskit.lock.wait} per name, ended once with the set's outcome; {@code null} when nothing
		 * observes, so that an unobserved acquisition makes nothing for them.
		 */
		private final Observation @Nullable [] waits;

		private final AtomicBoolean reporting = new AtomicBoolean();

		private final Runnable stopHook = () -> endFromOutside(new End(new IllegalStateException(
				"The lock registry stopped while waiting for the locks " + MultiLock.this.description),
				AcquireResult.ERROR));

		/**
		 * Completed once the acquisition ended: the set handed over and reported, or what it took given back and
		 * its outcome reported.
		 */
		final CompletableFuture<@Nullable Void> settled = new CompletableFuture<>();

		// Written by one step at a time: the step in flight, or the retry that starts the next.

		private int step;

		private long backoffMillis = 1;

		// The fields below are guarded by this.

		/** A step is sent or answered (its reply decides what comes next): an end from outside waits for it. */
		private boolean stepping;

		/** The acquisition ended, or an end from outside waits for the step in flight. */
		private boolean ended;

		/** The end that came from outside while a step was in flight, which its reply applies. */
		private @Nullable End asked;

		/** The retry of a busy step, between two attempts. */
		private @Nullable ScheduledFuture<?> retry;

		Acquisition(Duration waitTime, long waitNanos, long leaseMillis, boolean watchdog) {
			this.waitTime = waitTime;
			this.waitNanos = waitNanos;
			this.leaseMillis = leaseMillis;
			this.watchdog = watchdog;
			if (MultiLock.this.parts.observations().isNoop()) {
				this.waits = null;
				return;
			}
			List<RedisLock> locks = MultiLock.this.locks;
			this.waits = new Observation[locks.size()];
			for (int i = 0; i < this.waits.length; i++) {
				this.waits[i] = locks.get(i).startWait();
			}
		}

		/** Runs the first step; the registry's stop and the caller's end of the stage end the acquisition. */
		void start() {
			MultiLock.this.parts.background().onStop(this.stopHook);
			// The acquisition's own end marks it ended before it completes the stage: then this finds it ended.
			CallerEnds.whenCallerEnds(this.result, () -> endFromOutside(CALLERS_END));
			synchronized (this) {
				if (this.ended) {
					// The registry stopped before the first step.
					return;
				}
				this.stepping = true;
			}
			attempt();
		}

		/**
		 * The caller ended the stage or the registry stopped: the acquisition ends at once between two attempts,
		 * giving back what the steps took, else when the step in flight replies. Does nothing once it ended.
		 * @param end what the stage completes with and the outcome, unless the caller ended the stage (then the
		 * outcome is the one its stage saw)
		 */
		private void endFromOutside(End end) {
			ScheduledFuture<?> pending;
			synchronized (this) {
				if (this.ended) {
					return;
				}
				this.ended = true;
				if (this.stepping) {
					this.asked = end;
					return;
				}
				pending = this.retry;
				this.retry = null;
			}
			if (pending != null) {
				pending.cancel(false);
			}
			fail(giveUp(null), end.failure(), end.outcome());
		}

		/** The pause after a busy step is over: the next attempt, unless the acquisition ended meanwhile. */
		private void retry() {
			synchronized (this) {
				if (this.ended) {
					return;
				}
				seeCallersEnd();
				if (!this.ended) {
					this.retry = null;
					this.stepping = true;
				}
			}
			End asked = asked();
			if (asked != null) {
				// Ended by the caller, seen here first, or from outside as this retry began.
				fail(giveUp(null), asked.failure(), asked.outcome());
				return;
			}
			attempt();
		}

		/**
		 * Called under this. A stage the acquisition did not complete was completed by its caller, whose end may be
		 * seen here before the stage's callback runs (the caller's own callbacks run first): the acquisition ends
		 * with it.
		 */
		private void seeCallersEnd() {
			if (!this.ended && this.result.isDone()) {
				this.ended = true;
				this.asked = CALLERS_END;
			}
		}

		/**
		 * The step in flight ends the acquisition itself.
		 * @return the end that came from outside while it was in flight, which the acquisition ends with instead,
		 * or {@code null}
		 */
		private synchronized @Nullable End endStep() {
			seeCallersEnd();
			this.ended = true;
			this.stepping = false;
			return this.asked;
		}

		/** @return the end that came from outside while the step was in flight, or {@code null} */
		private synchronized @Nullable End asked() {
			seeCallersEnd();
			return this.asked;
		}

		/** Runs the current step; its reply continues on the driver's thread, a retry on the scheduler's. */
		private void attempt() {
			List<RedisLock> locks = MultiLock.this.steps.get(this.step);
			List<LockScripts.Keys> keys = locks.stream().map(RedisLock::keys).toList();
			CompletionStage<LockScripts.MultiAttempt> call;
			// One script for the step: sent in the scope of the wait of its first name, its command span a child of
			// that wait's, on whichever thread sends it; closed once it is sent.
			Observation[] waits = this.waits;
			Observation wait = (waits != null) ? waits[MultiLock.this.locks.indexOf(locks.get(0))] : Observation.NOOP;
			try (Observation.Scope scope = wait.openScope()) {
				call = MultiLock.this.scripts.acquireAll(keys, this.owner, this.leaseMillis,
						MultiLock.this.parts.holds().nextRequestId());
			}
			catch (RuntimeException ex) {
				call = CompletableFuture.failedFuture(ex);
			}
			call.whenComplete((reply, failure) -> {
				try {
					answered(locks, reply, failure);
				}
				catch (RuntimeException ex) {
					End asked = endStep();
					fail(giveUp(locks), (asked != null) ? asked.failure() : ex,
							(asked != null) ? asked.outcome() : AcquireResult.ERROR);
				}
			});
		}

		private void answered(List<RedisLock> locks, LockScripts.@Nullable MultiAttempt reply,
				@Nullable Throwable failure) {
			if (failure != null || reply == null) {
				Throwable cause = (failure != null) ? Stages.unwrap(failure)
						: new IllegalStateException("No reply to " + LockScripts.MULTILOCK_ACQUIRE);
				if (RedisFailures.isUnavailable(cause)) {
					MultiLock.this.parts.outages().warn(cause);
				}
				// The step may have taken its locks all the same: they are freed with the rest.
				end(giveUp(locks), cause, AcquireResult.ERROR);
				return;
			}
			if (reply.acquired()) {
				for (int i = 0; i < locks.size(); i++) {
					this.taken.add(MultiLock.this.parts.holds().acquired(locks.get(i), this.owner,
							reply.fencingTokens()[i], 1, this.leaseMillis, this.watchdog));
				}
				this.step++;
				this.backoffMillis = 1;
				if (this.step < MultiLock.this.steps.size()) {
					End asked = asked();
					if (asked != null) {
						// Ended from outside while this step was in flight: what the steps took goes back.
						end(giveUp(null), asked.failure(), asked.outcome());
						return;
					}
					attempt();
					return;
				}
				End asked = endStep();
				if (asked != null) {
					fail(giveUp(null), asked.failure(), asked.outcome());
					return;
				}
				MultiLease lease = new MultiLease(List.copyOf(this.taken));
				if (MultiLock.this.parts.holds().handOver(this.result, lease, this.taken)) {
					MultiLock.this.parts.background().removeOnStop(this.stopHook);
					report(AcquireResult.ACQUIRED);
					this.settled.complete(null);
					return;
				}
				// Ended by the caller since the last step's reply: the holds were abandoned, what the steps took is
				// freed, and the outcome is the one the caller's stage saw.
				List<RedisLock> held = this.taken.stream().map((hold) -> hold.lock).toList();
				this.taken.clear();
				fail(giveUp(held), new CancellationException(), AcquireResult.INTERRUPTED);
				return;
			}
			long left = this.waitNanos - (System.nanoTime() - this.started);
			if (left <= 0) {
				end(giveUp(null), new LockNotAcquiredException(MultiLock.this.description, this.waitTime, null),
						AcquireResult.TIMEOUT);
				return;
			}
			// The holder's lease end publishes nothing and a release is not subscribed to: back off, never past
			// the end of the busy lease or of the wait.
			long pauseMillis = Math.min(this.backoffMillis, Math.max(reply.ttlMillis(), 1));
			pauseMillis += ThreadLocalRandom.current().nextLong(pauseMillis + 1);
			this.backoffMillis = Math.min(this.backoffMillis * 2, MAX_BACKOFF_MILLIS);
			long pauseNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(pauseMillis), left);
			End asked;
			synchronized (this) {
				seeCallersEnd();
				asked = this.asked;
				if (asked == null) {
					// Between two attempts from now on: an end from outside ends the acquisition itself.
					this.stepping = false;
				}
			}
			if (asked != null) {
				fail(giveUp(null), asked.failure(), asked.outcome());
				return;
			}
			ScheduledFuture<?> scheduled;
			try {
				scheduled = MultiLock.this.parts.background().schedule(this::retry, pauseNanos);
			}
			catch (RuntimeException ex) {
				// The registry stopped: its hook ended the acquisition, unless it stopped before the hook was set.
				synchronized (this) {
					if (this.ended) {
						return;
					}
					this.ended = true;
				}
				fail(giveUp(null), ex, AcquireResult.ERROR);
				return;
			}
			boolean endedMeanwhile;
			synchronized (this) {
				endedMeanwhile = this.ended;
				if (!endedMeanwhile) {
					this.retry = scheduled;
				}
			}
			if (endedMeanwhile) {
				scheduled.cancel(false);
			}
		}

		/**
		 * The step in flight ends the acquisition without the set, with its own end unless one came from outside
		 * while it was in flight.
		 */
		private void end(CompletableFuture<@Nullable Void> released, Throwable failure, AcquireResult outcome) {
			End asked = endStep();
			if (asked != null) {
				fail(released, asked.failure(), asked.outcome());
			}
			else {
				fail(released, failure, outcome);
			}
		}

		/**
		 * Ends the acquisition without the set once what it took is given back, so that the caller finds it free:
		 * the caller's stage decides the outcome ({@link LockHolds#handOver(CompletableFuture, Throwable,
		 * AcquireResult)}), so that an end of the caller's that came first, also while the steps were given back, is
		 * reported as the caller saw it.
		 * @param failure what the stage completes with, unless the caller ended it
		 * @param outcome the outcome should the stage take the failure
		 */
		private void fail(CompletableFuture<@Nullable Void> released, Throwable failure, AcquireResult outcome) {
			MultiLock.this.parts.background().removeOnStop(this.stopHook);
			released.whenComplete((ignored, releaseFailure) -> {
				try {
					report(MultiLock.this.parts.holds().handOver(this.result, failure, outcome));
				}
				finally {
					this.settled.complete(null);
				}
			});
		}

		/**
		 * Frees what was taken, none of it the caller's: the holds of the steps that succeeded are abandoned
		 * ({@link LockHolds#abandon}: not reported as released, since the caller never held the set), and their
		 * locks, with those of a step whose outcome is unknown, freed only where this owner holds them.
		 * @return completed when every release was answered, whatever the answer (a failed one ends with its lease)
		 */
		private CompletableFuture<@Nullable Void> giveUp(@Nullable List<RedisLock> uncertain) {
			List<RedisLock> freed = new ArrayList<>();
			for (LockHold hold : this.taken) {
				MultiLock.this.parts.holds().abandon(hold);
				freed.add(hold.lock);
			}
			this.taken.clear();
			if (uncertain != null) {
				freed.addAll(uncertain);
			}
			List<CompletableFuture<?>> releases = new ArrayList<>();
			for (RedisLock lock : freed) {
				try {
					releases.add(MultiLock.this.scripts.releaseLast(lock.keys(), this.owner).toCompletableFuture());
				}
				catch (RuntimeException ex) {
					// Redis is failing: the lease ends what the step may have taken.
				}
			}
			return CompletableFuture.allOf(releases.stream()
				.map((release) -> release.handle((value, failure) -> null))
				.toArray(CompletableFuture[]::new));
		}

		/** Ends the wait of every name with the set's outcome, the first time only. */
		private void report(AcquireResult outcome) {
			if (!this.reporting.compareAndSet(false, true)) {
				return;
			}
			Observation[] waits = this.waits;
			if (waits != null) {
				for (int i = 0; i < waits.length; i++) {
					MultiLock.this.locks.get(i).report(outcome, this.started, waits[i]);
				}
			}
		}

	}

	/**
	 * How an acquisition ends when it does not end itself: what the caller's stage completes with and the outcome.
	 * For the caller's own end of the stage neither counts: the stage is completed already, and the outcome is the
	 * one it saw ({@link LockHolds#endedByCaller}).
	 */
	private record End(Throwable failure, AcquireResult outcome) {
	}

	/**
	 * One owner's hold on every name of a {@link MultiLock}, from any thread: close it to release them all.
	 * Releasing again does nothing.
	 */
	public static final class MultiLease implements AutoCloseable {

		private final List<LockHold> holds;

		private boolean closed;

		MultiLease(List<LockHold> holds) {
			this.holds = holds;
		}

		/** @return the full lock names, in the order they were taken */
		public List<String> lockNames() {
			return this.holds.stream().map((hold) -> hold.lock.name()).toList();
		}

		/**
		 * The fencing token of one name: strictly greater than every token handed out for that name before, by
		 * this set or by the single lock of the name.
		 * @param name one of the full lock names
		 * @return the token
		 * @throws IllegalArgumentException when {@code name} is not one of the set (the message does not repeat it:
		 * names may be data the application received)
		 */
		public long fencingToken(String name) {
			for (LockHold hold : this.holds) {
				if (hold.lock.name().equals(name)) {
					return hold.fencingToken;
				}
			}
			throw new IllegalArgumentException("name is not one of the " + this.holds.size()
					+ " full lock names of this lease (lockNames())");
		}

		/** @return whether the lease is neither released nor lost on any of its names */
		public boolean isActive() {
			synchronized (this) {
				if (this.closed) {
					return false;
				}
			}
			return this.holds.stream().noneMatch(LockHold::isLost);
		}

		/**
		 * Releases every name and waits for Redis to confirm. Do not call it on the driver's thread (in a
		 * {@code thenApply} of {@link MultiLock#acquireAsync}); use {@link #releaseAsync()} there.
		 * @throws LockLeaseLostException if a name's lease was lost before; the other names are released all the same
		 */
		@Override
		public void close() {
			Stages.uninterruptibly(() -> LockScripts.await(releaseAsync()));
		}

		/**
		 * Releases every name without blocking the calling thread.
		 * @return completed when Redis confirmed every release; exceptionally with {@link LockLeaseLostException}
		 * if a name was lost before, or with the failure of a release (that name's lease then ends on its own)
		 */
		public CompletionStage<@Nullable Void> releaseAsync() {
			synchronized (this) {
				if (this.closed) {
					return CompletableFuture.completedFuture(null);
				}
				this.closed = true;
			}
			List<CompletableFuture<@Nullable Void>> releases = new ArrayList<>(this.holds.size());
			for (LockHold hold : this.holds) {
				releases.add(new Release(hold).start().toCompletableFuture());
			}
			return CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)).handle((ignored, failure) -> {
				if (failure == null) {
					return null;
				}
				RuntimeException first = null;
				for (CompletableFuture<@Nullable Void> release : releases) {
					if (release.isCompletedExceptionally()) {
						Throwable cause = Stages.unwrap(release.handle((value, ex) -> ex).join());
						RuntimeException exception = (cause instanceof RuntimeException runtime) ? runtime
								: new IllegalStateException(cause);
						// A lost name is what the holder most needs to hear of.
						if (first == null || exception instanceof LockLeaseLostException) {
							first = exception;
						}
					}
				}
				throw (first != null) ? first : new CancellationException();
			});
		}

		@Override
		public String toString() {
			return "MultiLease" + lockNames();
		}

	}

}
