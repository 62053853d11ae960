package io.rediskit.autoconfigure.lock;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.rediskit.lock.HeldLock;
import io.rediskit.lock.LeaderElection;
import io.rediskit.lock.LeaderElections;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.Locks;
import io.rediskit.lock.RedlockRegistry;
import io.rediskit.lock.SemaphoreRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * Actuator endpoint {@code redislocks}: the distributed locks this instance holds now.
 */
@Endpoint(id = "redislocks")
public class RedisLocksEndpoint {

	private final Locks lockRegistry;

	private final @Nullable Locks redlockRegistry;

	private final @Nullable SemaphoreRegistry semaphoreRegistry;

	private @Nullable LeaderElections leaderElections;

	private final Map<String, Supplier<List<HeldLock>>> included = new ConcurrentHashMap<>();

	/**
	 * @param lockRegistry the factory whose holds are listed
	 */
	public RedisLocksEndpoint(LockRegistry lockRegistry) {
		this(lockRegistry, null);
	}

	/**
	 * @param lockRegistry the registry whose holds are listed
	 * @param redlockRegistry the Redlock registry whose holds are listed too, if any
	 */
	public RedisLocksEndpoint(LockRegistry lockRegistry, @Nullable RedlockRegistry redlockRegistry) {
		this(lockRegistry, redlockRegistry, null);
	}

	/**
	 * @param lockRegistry the registry whose holds are listed
	 * @param redlockRegistry the Redlock registry whose holds are listed too, if any
	 * @param semaphoreRegistry the semaphore registry whose open leases are listed too, if any
	 */
	public RedisLocksEndpoint(LockRegistry lockRegistry, @Nullable RedlockRegistry redlockRegistry,
			@Nullable SemaphoreRegistry semaphoreRegistry) {
		this.lockRegistry = lockRegistry;
		this.redlockRegistry = redlockRegistry;
		this.semaphoreRegistry = semaphoreRegistry;
	}

	/**
	 * Adds the roles this instance stands for, with who leads each, to the view.
	 * @param leaderElections this instance's candidacies, or {@code null} for none
	 */
	public void setLeaderElections(@Nullable LeaderElections leaderElections) {
		this.leaderElections = leaderElections;
	}

	/**
	 * Lists the holds of another member of the lock family too (a read-write or a fair lock registry), after the
	 * locks, under its own kind.
	 * @param kind the kind its holds are listed as, such as {@code rwlock}
	 * @param holds what that member's owners hold now, asked each time the endpoint is read
	 */
	public void include(String kind, Supplier<List<HeldLock>> holds) {
		this.included.put(kind, holds);
	}

	/** @return the held locks, single-node ones first, then Redlock's and other members', each kind oldest first */
	@ReadOperation
	public HeldLocksDescriptor heldLocks() {
		List<HeldLockDescriptor> locks = new ArrayList<>();
		this.lockRegistry.heldLocks().forEach((lock) -> locks.add(HeldLockDescriptor.of(lock, "single")));
		if (this.redlockRegistry != null) {
			this.redlockRegistry.heldLocks().forEach((lock) -> locks.add(HeldLockDescriptor.of(lock, "redlock")));
		}
		if (this.semaphoreRegistry != null) {
			this.semaphoreRegistry.heldPermits()
				.forEach((lease) -> locks.add(HeldLockDescriptor.of(lease, "semaphore")));
		}
		new TreeMap<>(this.included).forEach((kind, holds) -> holds.get()
			.forEach((lock) -> locks.add(HeldLockDescriptor.of(lock, kind))));
		List<LeaderDescriptor> leaders = new ArrayList<>();
		if (this.leaderElections != null) {
			this.leaderElections.elections().forEach((election) -> leaders.add(LeaderDescriptor.of(election)));
		}
		return new HeldLocksDescriptor(locks, leaders);
	}

	/**
	 * The endpoint's response.
	 * @param locks the held locks, oldest first
	 * @param leaders the roles this instance stands for, by role
	 */
	public record HeldLocksDescriptor(List<HeldLockDescriptor> locks, List<LeaderDescriptor> leaders) {

		/**
		 * The view without leader election.
		 * @param locks the held locks, oldest first
		 */
		public HeldLocksDescriptor(List<HeldLockDescriptor> locks) {
			this(locks, List.of());
		}

	}

	/**
	 * One role this instance stands for, and who leads it as Redis has it.
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
			return new LeaderDescriptor(election.getRole(), election.isLeader(),
					leader.map(LeaderElection.Leader::instance).orElse(null),
					leader.map(LeaderElection.Leader::term).orElse(0L));
		}

	}

	/**
	 * One held lock.
	 * @param name full lock name
	 * @param group lock group (metric tag)
	 * @param heldSince ISO-8601 instant of the first acquisition
	 * @param leaseRemainingMillis estimated time until the lease ends unless renewed
	 * @param fencingToken the hold's fencing token
	 * @param holdCount reentrant holds
	 * @param watchdog whether the watchdog renews it
	 * @param owner {@code thread:<id>} or {@code lease}
	 * @param kind {@code single} for the single-node lock, {@code redlock} for Redlock (whose remaining lease is
	 * its validity), {@code semaphore} for one acquisition of semaphore permits,
	 * {@code rwlock} for a read-write lock (a thread that downgraded is listed twice, once per
	 * side), {@code fairlock} for a fair lock
	 */
	public record HeldLockDescriptor(String name, String group, String heldSince, long leaseRemainingMillis,
			long fencingToken, int holdCount, boolean watchdog, String owner, String kind) {

		static HeldLockDescriptor of(HeldLock lock, String kind) {
			return new HeldLockDescriptor(lock.name(), lock.group(), lock.heldSince().toString(),
					lock.leaseRemaining().toMillis(), lock.fencingToken(), lock.holdCount(), lock.watchdog(),
					lock.owner(), kind);
		}

	}

}
