package io.rediskit.leader;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.rediskit.leader.LeadershipRevokedEvent.Reason;
import io.rediskit.lock.Lease;
import io.rediskit.lock.Locks;
import io.rediskit.lock.RedisLock;
import io.rediskit.lock.RedlockRegistry;
import io.rediskit.support.Listeners;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.Stages;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * This instance's candidacy for the leadership of one role, from {@link LeaderElections#elect(String)}: at most
 * one instance leads a role at a time, and when it dies, yields or loses Redis another takes over.
 * <p>
 * <b>How.</b> The leadership is the lock {@code leader:<role>} of the registry ({@link Locks#getLock(String,
 * String)}), held as a watchdog lease: the registry's watchdog renews it every third of its watchdog timeout
 * while this instance lives. Every tick (the retry interval, and at least six times per lease) a candidate that
 * does not lead tries to take the lock once; the one that takes it is granted the role ({@link
 * LeadershipGrantedEvent}), with the lock's fencing token as its <b>term</b>: strictly greater than every earlier
 * term of the role, whoever held it. Ticks run on the elections' {@link io.rediskit.support.Background} (the
 * application's {@code TaskScheduler} under the starter) and never block on Redis. It uses only the lock's public
 * API: {@link RedisLock#tryAcquireRenewedAsync(String)} (the lease under this instance's name, a try whose finding
 * the leader in place is observed as {@code skipped}, not as a timeout), {@link Lease#certainValidity()} and
 * {@link RedisLock#holder()}.
 * <p>
 * <b>Losing it.</b> The leader checks its lease on every tick. Once less than a third of the lease is certain
 * (renewals failed or came late: Redis down, paused or failing over) or the lock was found taken over, it revokes
 * itself ({@link LeadershipRevokedEvent}, {@link Reason#LEASE_LOST}) and frees the lock should it still be its own.
 * Since the lease is counted from before each renewal was sent, and another candidate can only take the lock once
 * the key has expired on the server, the revocation comes before anyone else can be granted, as long as this JVM
 * runs. A leader JVM that is paused past its lease (a long GC, {@code SIGSTOP}) learns of it as it resumes:
 * {@link #isLeader()} answers from the lease's margin at the moment of the call, and the revocation follows on the
 * next tick; the term is the fence for writes made meanwhile. A leader that dies is replaced once its lease
 * (the watchdog timeout) has run out.
 * <p>
 * <b>Limits.</b> On one deployment, a failover that loses the lock's key (asynchronous replication) can let a new
 * leader in before the old one revoked itself; terms still increase (they start from the server's clock). Over a
 * {@link RedlockRegistry} the lease is the validity a majority of nodes confirmed, and losing a minority of nodes
 * loses no leader.
 */
public final class LeaderElection {

	private static final Log logger = LogFactory.getLog(LeaderElection.class);

	/** The leader {@link #currentLeader()} names when the role's lock is held by a holder that gave no name. */
	static final String UNNAMED = "unnamed";

	private final String role;

	private final RedisLock lock;

	private final LeaderElections.Scheduler scheduler;

	private final ThrottledLog outages;

	private final String instance;

	private final Listeners<LeadershipListener> listeners;

	private final long tickNanos;

	private final long marginNanos;

	private @Nullable Lease lease;

	private boolean running;

	private boolean attempting;

	private long yieldedUntilNanos;

	private @Nullable ScheduledFuture<?> tick;

	LeaderElection(String role, RedisLock lock, String instance, Listeners<LeadershipListener> listeners,
			Duration retryInterval, LeaderElections.Scheduler scheduler, ThrottledLog outages) {
		this.role = role;
		this.lock = lock;
		this.scheduler = scheduler;
		this.outages = outages;
		this.instance = instance;
		this.listeners = listeners;
		long leaseNanos = lock.watchdogTimeout().toNanos();
		this.tickNanos = Math.max(1, Math.min(retryInterval.toNanos(), leaseNanos / 6));
		this.marginNanos = leaseNanos / 3;
	}

	/** @return the role this candidacy is for */
	public String role() {
		return this.role;
	}

	/** @return the name this instance goes by in the election, shown as the leader by {@link #currentLeader()} */
	public String instance() {
		return this.instance;
	}

	/**
	 * Whether this instance leads the role now: granted, not revoked, and its lease certain for more than a
	 * third of the watchdog timeout. Cheap, asks nothing of Redis.
	 * @return whether this instance is the leader
	 */
	public synchronized boolean isLeader() {
		return this.lease != null && certain(this.lease);
	}

	/** @return the term this instance leads in, empty when it is not the leader */
	public synchronized Optional<Long> term() {
		Lease current = this.lease;
		return (current != null && certain(current)) ? Optional.of(current.fencingToken()) : Optional.empty();
	}

	/**
	 * Who leads the role now, whichever instance: asked of Redis (over a Redlock registry, the holder a majority of
	 * nodes store).
	 * @return the leader's instance name ({@code unnamed} should something other than an election hold the role's lock) and
	 * its term, or empty when no instance leads
	 * @throws org.springframework.dao.DataAccessException when Redis (or too many nodes) could not tell
	 */
	public Optional<Leader> currentLeader() {
		return this.lock.holder().map((holder) -> new Leader(
				(holder.name() != null) ? holder.name() : UNNAMED, holder.fencingToken()));
	}

	/** Joins the election: the first attempt runs at once. Does nothing when running. */
	public synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		schedule(0);
	}

	/** Leaves the election; a leader revokes itself ({@link Reason#STOPPED}) and frees the lock. */
	public synchronized void stop() {
		if (!this.running) {
			return;
		}
		this.running = false;
		if (this.tick != null) {
			this.tick.cancel(false);
			this.tick = null;
		}
		revoke(Reason.STOPPED);
	}

	/** @return whether this instance takes part in the election */
	public synchronized boolean isRunning() {
		return this.running;
	}

	/**
	 * Gives the leadership up, if this instance has it, and stays out of the election for two ticks, so that
	 * another candidate takes over; this instance may be elected again after that.
	 * @return whether this instance was the leader
	 */
	public synchronized boolean yieldLeadership() {
		if (this.lease == null) {
			return false;
		}
		this.yieldedUntilNanos = System.nanoTime() + 2 * this.tickNanos;
		revoke(Reason.YIELDED);
		return true;
	}

	/** One tick: the leader checks its lease, a candidate tries once. Package-private so that tests can run one. */
	synchronized void tick() {
		if (!this.running) {
			return;
		}
		try {
			long now = System.nanoTime();
			if (this.lease != null) {
				if (!certain(this.lease)) {
					revoke(Reason.LEASE_LOST);
				}
			}
			else if (!this.attempting && now - this.yieldedUntilNanos >= 0) {
				attempt();
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Leader election of role '" + this.role + "' failed a tick, retrying on the next", ex);
		}
		finally {
			schedule(this.tickNanos);
		}
	}

	private void attempt() {
		this.attempting = true;
		// A try, not a wait: a follower finding the leader in place is the normal case, observed as skipped.
		CompletionStage<Optional<Lease>> acquisition;
		try {
			acquisition = this.lock.tryAcquireRenewedAsync(this.instance);
		}
		catch (RuntimeException ex) {
			this.attempting = false;
			throw ex;
		}
		// The reply comes on the driver's thread: the outcome, listeners included, is handled on the scheduler's.
		acquisition.whenComplete((taken, failure) -> {
			try {
				this.scheduler.schedule(() -> attempted((taken != null) ? taken.orElse(null) : null, failure), 0);
			}
			catch (RuntimeException ex) {
				// The registry stopped meanwhile: a lease taken now ends with its lease, never renewed.
				synchronized (this) {
					this.attempting = false;
				}
			}
		});
	}

	private synchronized void attempted(@Nullable Lease taken, @Nullable Throwable failure) {
		this.attempting = false;
		if (taken == null) {
			Throwable cause = (failure != null) ? Stages.unwrap(failure) : null;
			if (cause != null) {
				if (RedisFailures.isUnavailable(cause)) {
					this.outages.warn(cause);
				}
				else {
					logger.warn("Leader election of role '" + this.role + "' failed an attempt", cause);
				}
			}
			return;
		}
		if (!this.running || !certain(taken)) {
			// Stopped meanwhile, or the reply came too late to lead with confidence.
			taken.releaseAsync();
			return;
		}
		this.lease = taken;
		LeadershipGrantedEvent event = new LeadershipGrantedEvent(this, this.role, taken.fencingToken());
		logger.info("This instance (" + this.instance + ") leads role '" + this.role + "' in term "
				+ taken.fencingToken());
		this.listeners.notify((listener) -> listener.onGranted(event));
	}

	private void revoke(Reason reason) {
		Lease ending = this.lease;
		if (ending == null) {
			return;
		}
		this.lease = null;
		LeadershipRevokedEvent event = new LeadershipRevokedEvent(this, this.role, ending.fencingToken(), reason);
		if (reason == Reason.LEASE_LOST) {
			logger.warn("This instance (" + this.instance + ") no longer leads role '" + this.role + "' (term "
					+ ending.fencingToken() + "): its lease could not be confirmed in time");
		}
		// Told before the lock is freed: no other instance can be granted the role before this one has heard.
		this.listeners.notify((listener) -> listener.onRevoked(event));
		// Frees the lock if it is still this instance's; a lost lease fails the release, which is expected.
		ending.releaseAsync();
	}

	private boolean certain(Lease lease) {
		return lease.certainValidity().toNanos() > this.marginNanos;
	}

	private void schedule(long delayNanos) {
		try {
			this.tick = this.scheduler.schedule(this::tick, delayNanos);
		}
		catch (IllegalStateException | RejectedExecutionException ex) {
			// The registry stopped, or its scheduler no longer takes tasks (Spring shuts the application's
			// scheduler down as the context closes, before the registry stops): holds are no longer renewed, so
			// neither is leadership kept. Not an error for the scheduler's error handler to log.
			this.running = false;
			revoke(Reason.STOPPED);
		}
	}

	/** @return how often the election ticks, in ms */
	long tickMillis() {
		return TimeUnit.NANOSECONDS.toMillis(this.tickNanos);
	}

	@Override
	public String toString() {
		return "LeaderElection[" + this.role + ", " + this.instance + "]";
	}

	/**
	 * The leader of a role as Redis has it.
	 * @param instance the name the leading instance goes by ({@link LeaderElections#instance()})
	 * @param term its term
	 */
	public record Leader(String instance, long term) {
	}

}
