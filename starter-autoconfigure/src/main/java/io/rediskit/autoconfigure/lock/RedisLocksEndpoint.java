package io.rediskit.autoconfigure.lock;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

import io.rediskit.autoconfigure.support.Durations;
import io.rediskit.autoconfigure.support.ShownValues;
import io.rediskit.latch.LatchRegistry;
import io.rediskit.latch.RedisCountDownLatch;
import io.rediskit.leader.LeaderElection;
import io.rediskit.leader.LeaderElections;
import io.rediskit.lock.FairLockRegistry;
import io.rediskit.lock.HeldLock;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.ReadWriteLockRegistry;
import io.rediskit.lock.RedisSemaphore;
import io.rediskit.lock.RedlockRegistry;
import io.rediskit.lock.SemaphorePermits;
import io.rediskit.lock.SemaphoreRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * Actuator endpoint {@code rediskitlock}: the distributed locks this instance holds now, and the roles it stands
 * for. Every member of the lock family is listed the same way: {@link #include(String, Supplier) included} under
 * its kind, in the order included, asked what it holds each time the endpoint is read (so that no registry is
 * looked up early); the single-node lock comes first. Then the {@code @ScheduledLock} jobs this instance triggered,
 * as {@link ScheduledJobs} recorded them (no Redis call: the console shows their state in Redis).
 * <p>
 * The names of held locks, semaphores and latches are given in code and often built from what the application
 * received ({@code @DistributedLock(key = "#orderId")}, {@code getLock("invoice:" + id)}), so they show only as
 * {@code management.endpoint.rediskitlock.show-values} says, like Spring Boot's {@code env} endpoint: never by
 * default, {@code when-authorized} to a user in one of {@code management.endpoint.rediskitlock.roles} (any
 * authenticated user when none is set), or {@code always}. Hidden, a name is {@code null} beside its group, kind,
 * times, fencing token and counts; a group shows unless it is the name itself (a lock or semaphore taken by its name
 * alone). Leader roles, the leading instance's name and scheduled jobs' names are configured and always show.
 */
@Endpoint(id = "rediskitlock")
public class RedisLocksEndpoint {

	private final Map<String, Supplier<List<HeldLock>>> members = Collections.synchronizedMap(new LinkedHashMap<>());

	private volatile Supplier<List<LeaderElection>> leaders = List::of;

	private volatile Supplier<List<ScheduledJobs.ScheduledJob>> jobs = List::of;

	private volatile Supplier<List<RedisSemaphore>> semaphores = List::of;

	private volatile Supplier<List<RedisCountDownLatch>> latches = List::of;

	private final ShownValues shownValues;

	/**
	 * The endpoint over every member of the lock family the application has, each under its kind
	 * ({@code single}, {@code redlock}, {@code semaphore}, {@code fair}, {@code readwrite}), the leader elections
	 * and the scheduled jobs; each registry is looked up when the endpoint is read, so none is created early. What
	 * the actuator endpoint and the console both read.
	 * @param lockRegistry the single-node lock's registry
	 * @param redlocks the Redlock registries, if any
	 * @param semaphores the semaphore registries, if any: their holds, and each semaphore with its permits
	 * @param fairLocks the fair-lock registries, if any
	 * @param readWriteLocks the read-write-lock registries, if any
	 * @param leaderElections the leader elections, if any
	 * @param scheduledJobs the scheduled jobs' records, if any
	 * @param latches the latch registries, if any: each latch with its count
	 * @param shownValues to whom names given in code show over HTTP and JMX
	 * @return the endpoint
	 */
	public static RedisLocksEndpoint ofFamily(LockRegistry lockRegistry, ObjectProvider<RedlockRegistry> redlocks,
			ObjectProvider<SemaphoreRegistry> semaphores, ObjectProvider<FairLockRegistry> fairLocks,
			ObjectProvider<ReadWriteLockRegistry> readWriteLocks, ObjectProvider<LeaderElections> leaderElections,
			ObjectProvider<ScheduledJobs> scheduledJobs, ObjectProvider<LatchRegistry> latches,
			ShownValues shownValues) {
		RedisLocksEndpoint endpoint = new RedisLocksEndpoint(lockRegistry, shownValues);
		endpoint.include("redlock", () -> held(redlocks, RedlockRegistry::heldLocks));
		endpoint.include("semaphore", () -> held(semaphores, SemaphoreRegistry::heldPermits));
		endpoint.include("fair", () -> held(fairLocks, FairLockRegistry::heldLocks));
		endpoint.include("readwrite", () -> held(readWriteLocks, ReadWriteLockRegistry::heldLocks));
		endpoint.includeLeaders(() -> leaderElections.stream().flatMap((each) -> each.elections().stream()).toList());
		endpoint.includeJobs(() -> scheduledJobs.stream().flatMap((each) -> each.jobs().stream()).toList());
		endpoint.includeSemaphores(() -> semaphores.stream().flatMap((each) -> each.semaphores().stream()).toList());
		endpoint.includeLatches(() -> latches.stream().flatMap((each) -> each.latches().stream()).toList());
		return endpoint;
	}

	private static <R> List<HeldLock> held(ObjectProvider<R> registries, Function<R, List<HeldLock>> holds) {
		return registries.stream().flatMap((registry) -> holds.apply(registry).stream()).toList();
	}

	/**
	 * Lists what the lock registry holds, as kind {@code single}, never showing names given in code;
	 * {@link #include} adds the other members.
	 * @param lockRegistry the registry whose holds are listed first
	 */
	public RedisLocksEndpoint(LockRegistry lockRegistry) {
		this(lockRegistry, ShownValues.never());
	}

	/**
	 * Lists what the lock registry holds, as kind {@code single}; {@link #include} adds the other members.
	 * @param lockRegistry the registry whose holds are listed first
	 * @param shownValues to whom names given in code show over HTTP and JMX
	 */
	public RedisLocksEndpoint(LockRegistry lockRegistry, ShownValues shownValues) {
		this.shownValues = shownValues;
		include("single", lockRegistry::heldLocks);
	}

	/**
	 * Lists the holds of a member of the lock family too (Redlock, semaphore, read-write or fair lock registries),
	 * after those included before, under its own kind; including a kind again replaces it in its place.
	 * @param kind the kind its holds are listed as, such as {@code readwrite}
	 * @param holds what that member's owners hold now, asked each time the endpoint is read
	 */
	public void include(String kind, Supplier<List<HeldLock>> holds) {
		this.members.put(kind, holds);
	}

	/**
	 * Lists the roles this instance stands for too, with who leads each.
	 * @param elections this instance's candidacies now, asked each time the endpoint is read
	 */
	public void includeLeaders(Supplier<List<LeaderElection>> elections) {
		this.leaders = elections;
	}

	/**
	 * Lists the scheduled jobs this instance triggered too, with its record of their runs and skips.
	 * @param jobs the jobs now, asked each time the endpoint is read
	 */
	public void includeJobs(Supplier<List<ScheduledJobs.ScheduledJob>> jobs) {
		this.jobs = jobs;
	}

	/**
	 * Lists the semaphores this instance handed out too, each with its permits in Redis (one read-only script each).
	 * @param semaphores the semaphores now, asked each time the endpoint is read
	 */
	public void includeSemaphores(Supplier<List<RedisSemaphore>> semaphores) {
		this.semaphores = semaphores;
	}

	/**
	 * Lists the count-down latches this instance handed out too, each with its count in Redis (one read each).
	 * @param latches the latches now, asked each time the endpoint is read
	 */
	public void includeLatches(Supplier<List<RedisCountDownLatch>> latches) {
		this.latches = latches;
	}

	/**
	 * @param securityContext who asks, for {@code show-values=when-authorized}
	 * @return the held locks, each included kind in turn, each kind oldest first; then the roles, the jobs, the
	 * semaphores and the latches (names given in code only if shown to who asks)
	 */
	@ReadOperation
	public HeldLocksDescriptor heldLocks(SecurityContext securityContext) {
		return heldLocks(this.shownValues.to(securityContext));
	}

	/**
	 * What {@link #heldLocks(SecurityContext)} describes, for a reader that decides itself whether names given in
	 * code show (the console, under {@code redis-kit.console.show-payloads}).
	 * @param shown whether the names of held locks, semaphores and latches show
	 * @return the held locks, each included kind in turn, each kind oldest first; then the roles, the jobs, the
	 * semaphores and the latches
	 */
	public HeldLocksDescriptor heldLocks(boolean shown) {
		Map<String, Supplier<List<HeldLock>>> kinds;
		synchronized (this.members) {
			kinds = new LinkedHashMap<>(this.members);
		}
		List<HeldLockDescriptor> locks = new ArrayList<>();
		kinds.forEach((kind, holds) -> holds.get().forEach((lock) -> locks.add(HeldLockDescriptor.of(lock, kind))));
		List<LeaderDescriptor> leaders = new ArrayList<>();
		this.leaders.get().forEach((election) -> leaders.add(LeaderDescriptor.of(election)));
		List<JobDescriptor> jobs = this.jobs.get().stream().map(JobDescriptor::of).toList();
		return new HeldLocksDescriptor(locks, leaders, jobs,
				this.semaphores.get().stream().map(SemaphoreDescriptor::of).toList(),
				this.latches.get().stream().map(LatchDescriptor::of).toList())
			.shown(shown);
	}

	/**
	 * The endpoint's response.
	 * @param locks the held locks, oldest first
	 * @param leaders the roles this instance stands for, by role
	 * @param jobs the scheduled jobs this instance triggered, by name
	 * @param semaphores the semaphores this instance handed out, by name, with their permits in Redis
	 * @param latches the count-down latches this instance handed out, by name, with their counts in Redis
	 */
	public record HeldLocksDescriptor(List<HeldLockDescriptor> locks, List<LeaderDescriptor> leaders,
			List<JobDescriptor> jobs, List<SemaphoreDescriptor> semaphores, List<LatchDescriptor> latches) {

		/**
		 * @param shown whether the names given in code show
		 * @return this view, or a copy whose holds, semaphores and latches have no names
		 */
		HeldLocksDescriptor shown(boolean shown) {
			if (shown) {
				return this;
			}
			return new HeldLocksDescriptor(this.locks.stream().map((lock) -> lock.shown(false)).toList(), this.leaders,
					this.jobs, this.semaphores.stream().map((semaphore) -> semaphore.shown(false)).toList(),
					this.latches.stream().map((latch) -> latch.shown(false)).toList());
		}

		/**
		 * The view without semaphores and latches.
		 * @param locks the held locks, oldest first
		 * @param leaders the roles this instance stands for, by role
		 * @param jobs the scheduled jobs this instance triggered, by name
		 */
		public HeldLocksDescriptor(List<HeldLockDescriptor> locks, List<LeaderDescriptor> leaders,
				List<JobDescriptor> jobs) {
			this(locks, leaders, jobs, List.of(), List.of());
		}

		/**
		 * The view without scheduled jobs.
		 * @param locks the held locks, oldest first
		 * @param leaders the roles this instance stands for, by role
		 */
		public HeldLocksDescriptor(List<HeldLockDescriptor> locks, List<LeaderDescriptor> leaders) {
			this(locks, leaders, List.of());
		}

		/**
		 * The view without leader election.
		 * @param locks the held locks, oldest first
		 */
		public HeldLocksDescriptor(List<HeldLockDescriptor> locks) {
			this(locks, List.of());
		}

	}

	// The group shown beside a hidden name. A group is the metric tag, configured or chosen from a small fixed set
	// (the annotation's name, the group of get...(group, key)), so it shows; a lock or semaphore taken by its name
	// alone is its own group, which may then be data, and is hidden with its name.
	private static @Nullable String groupBeside(String name, @Nullable String group) {
		return (group != null && !group.equals(name)) ? group : null;
	}

	/**
	 * One semaphore and its permits, as Redis has them now (the permits of every instance's holders).
	 * @param name the semaphore, {@code null} when not shown
	 * @param group the name its metrics are tagged with, {@code null} when it is the name and that is not shown
	 * @param total the total in force, {@code null} when Redis did not answer
	 * @param held the permits held now, {@code null} when Redis did not answer
	 * @param error why Redis did not answer
	 */
	public record SemaphoreDescriptor(@Nullable String name, @Nullable String group, @Nullable Integer total,
			@Nullable Integer held, @Nullable String error) {

		/**
		 * Reads a semaphore another instance uses, without handing out a handle here (one read-only script).
		 * @param registry the semaphores
		 * @param name the semaphore's name
		 * @param total the total its users' handles give
		 * @return it with its permits in Redis, or with the error when Redis did not answer
		 */
		public static SemaphoreDescriptor read(SemaphoreRegistry registry, String name, int total) {
			// Read back from a heartbeat, the name of a group's semaphore ("group:key") no longer says its group.
			try {
				SemaphorePermits permits = registry.permits(name, total);
				return new SemaphoreDescriptor(name, name, permits.total(), permits.held(), null);
			}
			catch (RuntimeException ex) {
				return new SemaphoreDescriptor(name, name, null, null, String.valueOf(ex.getMessage()));
			}
		}

		static SemaphoreDescriptor of(RedisSemaphore semaphore) {
			try {
				SemaphorePermits permits = semaphore.permits();
				return new SemaphoreDescriptor(semaphore.name(), semaphore.group(), permits.total(), permits.held(),
						null);
			}
			catch (RuntimeException ex) {
				return new SemaphoreDescriptor(semaphore.name(), semaphore.group(), null, null,
						String.valueOf(ex.getMessage()));
			}
		}

		/**
		 * @param shown whether the name shows
		 * @return this semaphore, or a copy without its name (and without its group where that is the name)
		 */
		public SemaphoreDescriptor shown(boolean shown) {
			if (shown || this.name == null) {
				return this;
			}
			return new SemaphoreDescriptor(null, groupBeside(this.name, this.group), this.total, this.held, this.error);
		}

	}

	/**
	 * One count-down latch and its count, as Redis has it now.
	 * @param name the latch, {@code null} when not shown
	 * @param count the count left: {@code 0} open, {@code -1} not set (or expired); {@code null} when Redis did
	 * not answer
	 * @param error why Redis did not answer
	 */
	public record LatchDescriptor(@Nullable String name, @Nullable Long count, @Nullable String error) {

		/**
		 * Reads a latch another instance uses, without handing out a handle here (one read).
		 * @param registry the latches
		 * @param name the latch's name
		 * @return it with its count in Redis, or with the error when Redis did not answer
		 */
		public static LatchDescriptor read(LatchRegistry registry, String name) {
			try {
				return new LatchDescriptor(name, registry.count(name), null);
			}
			catch (RuntimeException ex) {
				return new LatchDescriptor(name, null, String.valueOf(ex.getMessage()));
			}
		}

		static LatchDescriptor of(RedisCountDownLatch latch) {
			try {
				return new LatchDescriptor(latch.name(), latch.count(), null);
			}
			catch (RuntimeException ex) {
				return new LatchDescriptor(latch.name(), null, String.valueOf(ex.getMessage()));
			}
		}

		/**
		 * @param shown whether the name shows
		 * @return this latch, or a copy without its name
		 */
		public LatchDescriptor shown(boolean shown) {
			return shown ? this : new LatchDescriptor(null, this.count, this.error);
		}

	}

	/**
	 * One role this instance stands for, and who leads it as Redis has it. Both names always show: a role follows
	 * the rule of configured names and is a metric tag, as the roles of {@code redis-kit.lock.leader.roles}, and an
	 * instance is named by its configuration (or host and process id).
	 * @param role the role
	 * @param leading whether this instance leads it
	 * @param leader the name of the instance that leads it, {@code null} when none does (or Redis did not answer)
	 * @param term the leader's term, {@code 0} when none leads
	 */
	public record LeaderDescriptor(String role, boolean leading, @Nullable String leader, long term) {

		static LeaderDescriptor of(LeaderElection election) {
			Optional<LeaderElection.Leader> leader;
			try {
				leader = election.currentLeader();
			}
			catch (RuntimeException ex) {
				// Redis unreachable: the view still says what this instance believes.
				leader = Optional.empty();
			}
			return new LeaderDescriptor(election.role(), election.isLeader(),
					leader.map(LeaderElection.Leader::instance).orElse(null),
					leader.map(LeaderElection.Leader::term).orElse(0L));
		}

	}

	/**
	 * One scheduled job as this instance saw it ({@link ScheduledJobs.ScheduledJob}), times as ISO-8601 text. Its
	 * name always shows: it is the annotation's (placeholders resolved), never the value of a key expression.
	 * @param name the lock name, or the group name of a keyed job
	 * @param keyed whether the job has a lock per value of its key expression
	 * @param lockAtLeastFor lock-at-least
	 * @param lockAtMostFor lock-at-most
	 * @param lastStart when this instance last started a run, {@code null} if never
	 * @param lastEnd when that run ended, {@code null} while it runs or if none did
	 * @param lastOutcome {@code ran}, {@code failed} or {@code lease-lost}; {@code null} while it runs or if none did
	 * @param lastSkip when a trigger here last found the lock taken, {@code null} if never
	 * @param runs runs started here
	 * @param skips triggers skipped here
	 * @param running runs in progress here now
	 */
	public record JobDescriptor(String name, boolean keyed, String lockAtLeastFor, String lockAtMostFor,
			@Nullable String lastStart, @Nullable String lastEnd, @Nullable String lastOutcome,
			@Nullable String lastSkip, long runs, long skips, int running) {

		static JobDescriptor of(ScheduledJobs.ScheduledJob job) {
			return new JobDescriptor(job.name(), job.keyed(), Durations.format(job.lockAtLeastFor()),
					Durations.format(job.lockAtMostFor()), text(job.lastStart()), text(job.lastEnd()),
					(job.lastOutcome() != null) ? job.lastOutcome().name().toLowerCase(Locale.ROOT).replace('_', '-')
							: null,
					text(job.lastSkip()), job.runs(), job.skips(), job.running());
		}

		private static @Nullable String text(@Nullable Instant instant) {
			return (instant != null) ? instant.toString() : null;
		}

	}

	/**
	 * One held lock.
	 * @param name full lock name, {@code null} when not shown
	 * @param group lock group (metric tag), {@code null} when it is the name (a lock taken by its name alone) and that
	 * is not shown
	 * @param heldSince ISO-8601 instant of the first acquisition
	 * @param leaseRemainingMillis estimated time until the lease ends unless renewed
	 * @param fencingToken the hold's fencing token
	 * @param holdCount reentrant holds
	 * @param watchdog whether the watchdog renews it
	 * @param owner {@code thread:<id>} or {@code lease}
	 * @param kind {@code single} for the single-node lock, {@code redlock} for Redlock (whose remaining lease is
	 * its validity), {@code semaphore} for one acquisition of semaphore permits,
	 * {@code readwrite} for a read-write lock (a thread that downgraded is listed twice, once per
	 * side), {@code fair} for a fair lock
	 */
	public record HeldLockDescriptor(@Nullable String name, @Nullable String group, String heldSince,
			long leaseRemainingMillis, long fencingToken, int holdCount, boolean watchdog, String owner, String kind) {

		static HeldLockDescriptor of(HeldLock lock, String kind) {
			return new HeldLockDescriptor(lock.name(), lock.group(), lock.heldSince().toString(),
					lock.leaseRemaining().toMillis(), lock.fencingToken(), lock.holdCount(), lock.watchdog(),
					lock.owner(), kind);
		}

		/**
		 * @param shown whether the name shows
		 * @return this hold, or a copy without its name (and without its group where that is the name)
		 */
		public HeldLockDescriptor shown(boolean shown) {
			if (shown || this.name == null) {
				return this;
			}
			return new HeldLockDescriptor(null, groupBeside(this.name, this.group), this.heldSince,
					this.leaseRemainingMillis, this.fencingToken, this.holdCount, this.watchdog, this.owner, this.kind);
		}

	}

}
