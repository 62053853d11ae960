package io.rediskit.lock;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.observation.Observation;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

/**
 * A lock for a job that many instances trigger on the same schedule and that must run once per trigger, from
 * {@link LockRegistry#getJobLock(String)}; {@code @ScheduledLock} applies it to a method. It is what
 * ShedLock calls a scheduler lock, with the same two bounds:
 * <ul>
 * <li><b>lock-at-most</b> ({@code lockAtMostFor}): the longest the lock is held, counted on the server's clock
 * from the start of the run. A holder that crashes frees the job after it at the latest (sooner: the lease is
 * the watchdog's, renewed while the run lasts, so a dead holder frees it within one watchdog timeout). A run
 * that lasts longer loses the lock when it passes, and its end reports {@link LockLeaseLostException}.</li>
 * <li><b>lock-at-least</b> ({@code lockAtLeastFor}): the shortest. A run that ends sooner leaves the key in
 * place, owned by nobody, until that much time has passed since it started, so an instance whose trigger fires
 * a little later (its clock skewed, its scheduler late) finds the lock taken and skips the same slot.</li>
 * </ul>
 * There is no waiting: {@link #tryStart} makes one attempt, and a lock held by another run (or kept by a
 * finished one) is a skip, reported to the listeners as {@link AcquireResult#SKIPPED}, not an error. Both bounds
 * are measured by Redis ({@code TIME} in the scripts), not by the instances, whose clocks may differ.
 * <p>
 * The key is the same as {@link LockRegistry#getLock(String)}'s for the name: a {@code @DistributedLock} and a
 * scheduled lock of one name exclude each other. Each run has its own owner and fencing token ({@link
 * Run#fencingToken()}); runs are not reentrant.
 * <p>
 * <b>Limits.</b> As every Redis lock, a lease: a process pause past lock-at-most, or a failover that loses the key,
 * can let two runs overlap; lock-at-least only covers triggers that fire within it of each other, so choose it
 * larger than the clock skew between instances and smaller than the interval between triggers. A trigger runs at
 * most once, not at least once: a run holds the lock until its end reaches Redis, so a run that lasts past the next
 * trigger, or an instance paused between the end of its work and its {@link Run#close()} (a long GC pause, a
 * starved machine), makes that trigger skip on every instance, and nobody runs it later. An attempt whose reply is
 * lost (Redis timed out) may still have taken the lock, which then stays taken until its first lease ends.
 */
public final class JobLock {

	private final RedisLock lock;

	/** The scripts of its own it runs (start, end, state) beside the shell's holds and watchdog. */
	private final LockScripts scripts;

	private final LockParts parts;

	JobLock(RedisLock lock, LockScripts scripts) {
		this.lock = lock;
		this.scripts = scripts;
		this.parts = lock.parts();
	}

	/** @return the full lock name */
	public String name() {
		return this.lock.name();
	}

	/** @return the name metrics are tagged with */
	public String group() {
		return this.lock.group();
	}

	/**
	 * Starts a run if no other run holds the lock or keeps it.
	 * @param lockAtLeastFor how long after its start the lock stays taken even when the run ended sooner;
	 * zero to free it as the run ends
	 * @param lockAtMostFor how long after its start the lock is freed even when the run has not ended; at least
	 * {@code lockAtLeastFor} and 1 ms
	 * @return the run, to close when it ends; empty when the lock is taken (a skip)
	 * @throws IllegalArgumentException for durations out of range, naming the argument
	 * @throws org.springframework.dao.DataAccessException when Redis failed to answer
	 */
	public Optional<Run> tryStart(Duration lockAtLeastFor, Duration lockAtMostFor) {
		return Stages.join(tryStartAsync(lockAtLeastFor, lockAtMostFor));
	}

	/**
	 * {@link #tryStart} without blocking; the stage completes on the driver's thread.
	 * @param lockAtLeastFor as for {@link #tryStart}
	 * @param lockAtMostFor as for {@link #tryStart}
	 * @return the run, or empty when the lock is taken
	 * @throws IllegalArgumentException at once, for durations out of range
	 */
	public CompletionStage<Optional<Run>> tryStartAsync(Duration lockAtLeastFor, Duration lockAtMostFor) {
		Bounds bounds = Bounds.of(lockAtLeastFor, lockAtMostFor);
		try {
			this.parts.background().ensureRunning();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		long started = System.nanoTime();
		Observation wait = this.lock.startWait();
		String owner = this.parts.holds().leaseOwner();
		long leaseMillis = Math.min(this.parts.watchdogTimeout().toMillis(), bounds.atMostMillis());
		CompletionStage<LockScripts.Attempt> attempt;
		try (Observation.Scope scope = wait.openScope()) {
			attempt = this.scripts.startScheduled(this.lock.keys(), owner, leaseMillis, bounds.atMostMillis());
		}
		catch (RuntimeException ex) {
			attempt = CompletableFuture.failedFuture(ex);
		}
		return attempt.handle((reply, failure) -> {
			if (failure != null) {
				Throwable cause = Stages.unwrap(failure);
				if (RedisFailures.isUnavailable(cause)) {
					this.parts.outages().warn(cause);
				}
				this.lock.report(AcquireResult.ERROR, started, wait);
				throw rethrowable(cause);
			}
			if (!reply.acquired()) {
				this.lock.report(AcquireResult.SKIPPED, started, wait);
				return Optional.empty();
			}
			LockHold hold = this.parts.holds().acquired(this.lock, owner, reply.fencingToken(), 1, leaseMillis, true);
			this.lock.report(AcquireResult.ACQUIRED, started, wait);
			return Optional.of(new Run(hold, bounds));
		});
	}

	/**
	 * Reads the lock's state in Redis now, whoever took it: one script call that reads the key's {@code PTTL}
	 * (and its owner when it exists), changing nothing.
	 * @return held by a run, kept by a finished run's lock-at-least, or free, with the time left
	 * @throws org.springframework.dao.DataAccessException when Redis failed to answer
	 */
	public State state() {
		return Stages.join(stateAsync());
	}

	/**
	 * {@link #state()} without blocking; the stage completes on the driver's thread.
	 * @return the lock's state in Redis now
	 */
	public CompletionStage<State> stateAsync() {
		try {
			return this.scripts.scheduledState(this.lock.keys()).thenApply(State::of);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@Override
	public String toString() {
		return "JobLock[" + this.lock.name() + "]";
	}

	private static RuntimeException rethrowable(Throwable cause) {
		return (cause instanceof RuntimeException runtime) ? runtime : new CompletionException(cause);
	}

	/**
	 * A job lock's state in Redis at one moment, as {@link #state()} read it.
	 * @param status who has the lock, if anyone
	 * @param remaining how long until the key ends unless renewed (a held lock's lease, which the watchdog renews
	 * while the run lasts; a kept lock's rest of lock-at-least); zero when free, negative for a key without a TTL
	 */
	public record State(Status status, Duration remaining) {

		static State of(@Nullable List<Object> reply) {
			if (reply == null || reply.size() != 2) {
				throw new IllegalStateException("Redis returned no state for " + LockScripts.SCHEDULED_STATE);
			}
			Status status = switch (((Long) reply.get(0)).intValue()) {
				case 1 -> Status.HELD;
				case 2 -> Status.KEPT;
				default -> Status.FREE;
			};
			return new State(status, Duration.ofMillis((Long) reply.get(1)));
		}

	}

	/** Who has a job lock. */
	public enum Status {

		/** A run holds it, on this instance or another. */
		HELD,

		/** No run holds it, but a finished run keeps it taken for the rest of its lock-at-least: triggers skip. */
		KEPT,

		/** Nobody has it: the next trigger runs. */
		FREE

	}

	/**
	 * The two bounds of a run, checked.
	 * @param atLeastMillis lock-at-least in ms
	 * @param atMostMillis lock-at-most in ms
	 */
	private record Bounds(long atLeastMillis, long atMostMillis) {

		static Bounds of(Duration lockAtLeastFor, Duration lockAtMostFor) {
			Objects.requireNonNull(lockAtLeastFor, "lockAtLeastFor");
			Objects.requireNonNull(lockAtMostFor, "lockAtMostFor");
			if (lockAtLeastFor.isNegative()) {
				throw new IllegalArgumentException("lockAtLeastFor must not be negative, was " + lockAtLeastFor);
			}
			if (lockAtMostFor.toMillis() < 1) {
				throw new IllegalArgumentException("lockAtMostFor must be at least 1ms, was " + lockAtMostFor);
			}
			if (lockAtMostFor.compareTo(LockSpec.MAX_DURATION) > 0) {
				throw new IllegalArgumentException("lockAtMostFor must be at most " + LockSpec.MAX_DURATION.toDays()
						+ " days, was " + lockAtMostFor);
			}
			if (lockAtLeastFor.compareTo(lockAtMostFor) > 0) {
				throw new IllegalArgumentException("lockAtLeastFor (" + lockAtLeastFor
						+ ") must not be longer than lockAtMostFor (" + lockAtMostFor + ")");
			}
			return new Bounds(lockAtLeastFor.toMillis(), lockAtMostFor.toMillis());
		}

	}

	/**
	 * One run holding a {@link JobLock}; close it when the run ends, from any thread. Closing frees the lock,
	 * or when lock-at-least has not passed since the start, leaves it taken (owned by nobody) until it has.
	 */
	public final class Run implements AutoCloseable {

		private final LockHold hold;

		private final Bounds bounds;

		private final AtomicBoolean closed = new AtomicBoolean();

		Run(LockHold hold, Bounds bounds) {
			this.hold = hold;
			this.bounds = bounds;
		}

		/** @return the run's fencing token, higher than that of every earlier holder of the name */
		public long fencingToken() {
			return this.hold.fencingToken;
		}

		/**
		 * Ends the run and waits for Redis to confirm.
		 * @throws LockLeaseLostException when the lock was lost before (lock-at-most passed, or the lease ran out
		 * while Redis was unreachable); the key is left alone
		 * @throws org.springframework.dao.DataAccessException when Redis failed to answer; the key then ends with
		 * its lease
		 */
		@Override
		public void close() {
			Stages.uninterruptibly(() -> LockScripts.await(closeAsync()));
		}

		/**
		 * {@link #close()} without blocking; a second call does nothing.
		 * @return completed when Redis confirmed, or exceptionally as {@link #close()} throws
		 */
		public CompletionStage<@Nullable Void> closeAsync() {
			if (!this.closed.compareAndSet(false, true)) {
				return CompletableFuture.completedFuture(null);
			}
			LockScripts scripts = JobLock.this.scripts;
			RedisLock lock = JobLock.this.lock;
			long atLeastMillis = this.bounds.atLeastMillis();
			return new Release(this.hold) {

				@Override
				CompletionStage<Long> call(LockHold hold) {
					// Kept for the rest of lock-at-least or freed now, the run's hold ends either way.
					return scripts.endScheduled(lock.keys(), hold.owner, atLeastMillis)
						.thenApply((reply) -> (reply < 0) ? -1L : 0L);
				}

			}.start();
		}

		@Override
		public String toString() {
			return "JobLock.Run[" + name() + ", fencing token " + this.hold.fencingToken + "]";
		}

	}

}
