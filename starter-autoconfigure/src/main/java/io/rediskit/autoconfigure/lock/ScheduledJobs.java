package io.rediskit.autoconfigure.lock;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.jspecify.annotations.Nullable;

/**
 * What this instance saw of its {@link io.rediskit.lock.ScheduledLock @ScheduledLock} jobs: for each job it
 * triggered, the bounds, its own last run (start, end, outcome), its last skip, and the runs and skips counted
 * here. {@link ScheduledLockInterceptor} feeds it; the console and the {@code rediskitlock} endpoint read it.
 * <p>
 * Kept in memory, per instance, since the application started: another instance's runs show there, as skips here.
 * Bounded: one entry per job name, which is the annotation's (placeholders resolved), never the value of its
 * {@code key} expression, so a keyed job is one entry for all its keys. The job's state in Redis is not kept here:
 * ask {@link io.rediskit.lock.JobLock#state()} when it is wanted.
 */
public final class ScheduledJobs {

	private final ConcurrentMap<String, Job> jobs = new ConcurrentHashMap<>();

	private final Clock clock;

	/** Records times on the system clock. */
	public ScheduledJobs() {
		this(Clock.systemUTC());
	}

	/**
	 * @param clock the clock run and skip times are read from
	 */
	public ScheduledJobs(Clock clock) {
		this.clock = clock;
	}

	/** @return every job this instance triggered so far, by name */
	public List<ScheduledJob> jobs() {
		return this.jobs.values().stream().map(Job::snapshot).sorted(Comparator.comparing(ScheduledJob::name)).toList();
	}

	Job job(String name, boolean keyed, Duration lockAtLeastFor, Duration lockAtMostFor) {
		return this.jobs.computeIfAbsent(name, (n) -> new Job(n, keyed, lockAtLeastFor, lockAtMostFor, this.clock));
	}

	/** How this instance's last run of a job ended. */
	public enum Outcome {

		/** The method returned and the lock was released or kept as lock-at-least says. */
		RAN,

		/** The method threw. */
		FAILED,

		/** The method returned, but the run had lost the lock before it ended (it outlasted lock-at-most). */
		LEASE_LOST

	}

	/**
	 * One job as this instance saw it.
	 * @param name the lock name, or the group name of a keyed job
	 * @param keyed whether the lock is {@code name:<key>}, a lock per value of the key expression
	 * @param lockAtLeastFor lock-at-least
	 * @param lockAtMostFor lock-at-most
	 * @param lastStart when this instance last started a run, {@code null} if never
	 * @param lastEnd when that run ended, {@code null} while it runs or if none did
	 * @param lastOutcome how it ended, {@code null} while it runs or if none did
	 * @param lastSkip when a trigger here last found the lock taken, {@code null} if never
	 * @param runs runs started here
	 * @param skips triggers skipped here
	 * @param running runs in progress here now
	 */
	public record ScheduledJob(String name, boolean keyed, Duration lockAtLeastFor, Duration lockAtMostFor,
			@Nullable Instant lastStart, @Nullable Instant lastEnd, @Nullable Outcome lastOutcome,
			@Nullable Instant lastSkip, long runs, long skips, int running) {
	}

	/** One job's record; each change under its monitor, so that a snapshot is consistent. */
	static final class Job {

		private final String name;

		private final boolean keyed;

		private final Duration lockAtLeastFor;

		private final Duration lockAtMostFor;

		private final Clock clock;

		private @Nullable Instant lastStart;

		private @Nullable Instant lastEnd;

		private @Nullable Outcome lastOutcome;

		private @Nullable Instant lastSkip;

		private long runs;

		private long skips;

		private int running;

		Job(String name, boolean keyed, Duration lockAtLeastFor, Duration lockAtMostFor, Clock clock) {
			this.name = name;
			this.keyed = keyed;
			this.lockAtLeastFor = lockAtLeastFor;
			this.lockAtMostFor = lockAtMostFor;
			this.clock = clock;
		}

		synchronized void started() {
			this.lastStart = this.clock.instant();
			this.lastEnd = null;
			this.lastOutcome = null;
			this.runs++;
			this.running++;
		}

		synchronized void ended(Outcome outcome) {
			this.lastEnd = this.clock.instant();
			this.lastOutcome = outcome;
			this.running--;
		}

		synchronized void skipped() {
			this.lastSkip = this.clock.instant();
			this.skips++;
		}

		synchronized ScheduledJob snapshot() {
			return new ScheduledJob(this.name, this.keyed, this.lockAtLeastFor, this.lockAtMostFor, this.lastStart,
					this.lastEnd, this.lastOutcome, this.lastSkip, this.runs, this.skips, this.running);
		}

	}

}
