package io.rediskit.lock;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import io.micrometer.observation.Observation;
import io.rediskit.support.Observations;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

/**
 * A distributed, reentrant lock, from {@link Locks#getLock(String)}: the one handle of the lock, whichever entry
 * point handed it out. {@link LockRegistry} locks one Redis key on one deployment (standalone, Sentinel or
 * Cluster); {@link RedlockRegistry} locks the same key on a majority of independent servers (Redlock). The API,
 * the guarantees below and the reports to {@link LockListener} are the same; the limits of each engine are on its
 * registry.
 * <p>
 * <b>Semantics.</b> Acquiring sets the key only if it is absent (or re-enters it when the same owner holds it)
 * with an owner token and a lease, in one script; releasing checks the owner, decrements the hold count and
 * deletes the key at zero, in one script. A key is never deleted by anyone but its owner. The {@link Lock}
 * methods are owned by the calling thread (reentrant per thread, released by the same thread);
 * {@link #acquire(Duration)} and {@link #acquireAsync(Duration)} return a {@link Lease} owned by no thread, which
 * any thread may close.
 * <p>
 * <b>Leases.</b> Without an explicit lease time the lease is the registry's default lease or, when that is
 * unset, the watchdog timeout, renewed every third of it while the owner holds the lock. If a renewal finds
 * the lock gone or taken, or cannot reach Redis before the lease ends, the hold is <em>lost</em>: the
 * {@link LockListener} hears of it once and the owner's later release throws {@link LockLeaseLostException}
 * without touching the key. With an explicit lease time nothing is renewed.
 * <p>
 * <b>Fencing.</b> Every first acquisition gets a fencing token that strictly increases per lock name across
 * all clients ({@link #fencingToken()}, {@link Lease#fencingToken()}). A resource that remembers the
 * highest token it accepted and rejects lower ones stays safe when a paused holder wakes up after losing the
 * lock.
 * <p>
 * <b>Waiting.</b> On one deployment a waiter retries when the lock's release message arrives, when the holder's
 * lease ends, or after the registry's {@code maxPollInterval}, whichever comes first; threads of one registry
 * waiting for one lock are served in arrival order, the lock handed from one to the next in the release script.
 * Redlock retries after a random pause. {@link #acquireAsync(Duration, Duration)} waits without a thread: its
 * retries run on the registry's scheduler and the driver's threads.
 * <p>
 * <b>Limits.</b> It is a lease, not a perfect mutex: a process pause, a network delay or a server clock jump
 * longer than the lease, or a failover that loses the key, can let two owners overlap. Fence what matters.
 * <b>Failures.</b> Redis errors surface as Spring's {@code DataAccessException}, a
 * {@code QueryTimeoutException} when the command timeout elapses, after one command timeout; an acquisition
 * that failed that way is undone in the background should it have taken effect (when a paused server answers
 * again), so it leaves no key behind beyond its lease. While Redis is unavailable the registry logs one warning
 * per interval, not one per call. {@link #newCondition()} is not supported.
 */
public final class RedisLock implements Lock {

	private final String name;

	private final String group;

	private final LockScripts.Keys keys;

	private final LockParts parts;

	RedisLock(String name, String group, LockScripts.Keys keys, LockParts parts) {
		this.name = name;
		this.group = group;
		this.keys = keys;
		this.parts = parts;
	}

	/** @return the full lock name */
	public String name() {
		return this.name;
	}

	/** @return the group name, the tag its metrics carry */
	public String group() {
		return this.group;
	}

	LockScripts.Keys keys() {
		return this.keys;
	}

	LockParts parts() {
		return this.parts;
	}

	/** Waits as long as it takes, ignoring interrupts (the interrupt flag is restored afterwards). */
	@Override
	public void lock() {
		try {
			acquire(threadOwner(), null, -1, false);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("Uninterruptible wait was interrupted", ex);
		}
	}

	/**
	 * Waits as long as it takes, with an explicit lease that is not renewed.
	 * @param leaseTime how long the lock is held at most
	 */
	public void lock(Duration leaseTime) {
		requireLease(leaseTime);
		try {
			acquire(threadOwner(), leaseTime, -1, false);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("Uninterruptible wait was interrupted", ex);
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		acquire(threadOwner(), null, -1, true);
	}

	/** One attempt, no waiting. */
	@Override
	public boolean tryLock() {
		try {
			return acquire(threadOwner(), null, 0, false) != null;
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("A single attempt does not wait", ex);
		}
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		return tryLock(Duration.ofNanos(unit.toNanos(time)));
	}

	/**
	 * Waits up to {@code waitTime} for the lock.
	 * @param waitTime how long to wait; zero or negative for a single attempt
	 * @return whether the current thread holds the lock
	 * @throws InterruptedException if interrupted while waiting; nothing is held then
	 */
	public boolean tryLock(Duration waitTime) throws InterruptedException {
		return acquire(threadOwner(), null, waitNanos(waitTime), true) != null;
	}

	/**
	 * Waits up to {@code waitTime} for the lock and holds it for at most {@code leaseTime}.
	 * @param waitTime how long to wait; zero or negative for a single attempt
	 * @param leaseTime the lease, not renewed; {@code null} for the registry default (the watchdog if unset)
	 * @return whether the current thread holds the lock
	 * @throws InterruptedException if interrupted while waiting; nothing is held then
	 */
	public boolean tryLock(Duration waitTime, @Nullable Duration leaseTime) throws InterruptedException {
		if (leaseTime != null) {
			requireLease(leaseTime);
		}
		return acquire(threadOwner(), leaseTime, waitNanos(waitTime), true) != null;
	}

	/**
	 * Releases one hold of the current thread; the lock is free when the last hold is released.
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 * @throws LockLeaseLostException if the hold was lost before this release
	 * @throws org.springframework.dao.DataAccessException if Redis (or, for Redlock, too many nodes) could not
	 * tell; the lease then ends the key
	 */
	@Override
	public void unlock() {
		LockHold hold = this.parts.holds().get(this, threadOwner());
		if (hold == null) {
			throw new IllegalMonitorStateException("Lock '" + this.name + "' is not held by the current thread");
		}
		new Release(hold).await();
	}

	/** @throws UnsupportedOperationException always */
	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException("RedisLock does not support conditions");
	}

	/** @return whether any owner holds the lock now (one round trip; for Redlock, on a majority of nodes) */
	public boolean isLocked() {
		return this.parts.engine().isLocked(this);
	}

	/**
	 * Who holds the lock now, whichever instance, as Redis has it (over a {@link RedlockRegistry}, the holder a
	 * majority of nodes store), changing nothing.
	 * @return the holder, or empty when nobody holds the lock
	 * @throws UnsupportedOperationException for the read side of a {@link ReadWriteLock}, which has many holders
	 * at once
	 * @throws org.springframework.dao.DataAccessException when Redis (or too many nodes) could not tell
	 */
	public Optional<Holder> holder() {
		Engine engine = this.parts.engine();
		return engine.await(holderAsync(), "holder", this);
	}

	/**
	 * {@link #holder()} without blocking the calling thread.
	 * @return the holder, or empty when nobody holds the lock, completed on the driver's thread; exceptionally when
	 * Redis (or too many nodes) could not tell
	 * @throws UnsupportedOperationException for the read side of a {@link ReadWriteLock}
	 */
	public CompletionStage<Optional<Holder>> holderAsync() {
		return this.parts.engine().holderAsync(this).thenApply((held) -> held.map(RedisLock::holder));
	}

	private static Holder holder(Engine.Holder held) {
		String owner = held.owner();
		int slash = owner.indexOf('/');
		return new Holder((slash >= 0) ? owner.substring(slash + 1) : null, held.fencingToken());
	}

	/**
	 * @return how long a lease the watchdog renews is certain for after each renewal: the registry's watchdog
	 * timeout, renewed every third of it
	 */
	public Duration watchdogTimeout() {
		return this.parts.watchdogTimeout();
	}

	/**
	 * {@link #isLocked()} without blocking the calling thread. The thread-owned queries
	 * ({@link #isHeldByCurrentThread()}, {@link #holdCount()}) have no asynchronous form: the thread that
	 * asks is what they ask about.
	 * @return whether any owner holds the lock now, completed on the driver's thread
	 */
	public CompletionStage<Boolean> isLockedAsync() {
		return this.parts.engine().isLockedAsync(this);
	}

	/**
	 * @return whether the current thread holds the lock: as Redis sees it now (one round trip), or for Redlock as
	 * this client counts it
	 */
	public boolean isHeldByCurrentThread() {
		return holdCount() > 0;
	}

	/**
	 * @return how many times the current thread holds the lock: as Redis sees it now (one round trip), or for
	 * Redlock as this client counts it
	 */
	public int holdCount() {
		return this.parts.engine().holdCount(this, threadOwner());
	}

	/**
	 * The fencing token of the current thread's hold.
	 * @return the token
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 */
	public long fencingToken() {
		LockHold hold = this.parts.holds().get(this, threadOwner());
		if (hold == null || hold.isLost()) {
			throw new IllegalMonitorStateException("Lock '" + this.name + "' is not held by the current thread");
		}
		return hold.fencingToken;
	}

	/**
	 * Acquires the lock for a lease owned by no thread, waiting up to the registry's default wait time.
	 * @return the lease; close it to release the lock
	 * @throws LockNotAcquiredException if the wait time ran out or the thread was interrupted (the interrupt
	 * flag is then set)
	 */
	public Lease acquire() {
		return acquire(this.parts.defaultWaitTime());
	}

	/**
	 * Acquires the lock for a lease owned by no thread:
	 * <pre>{@code
	 * try (Lease lease = lock.acquire(Duration.ofSeconds(2))) {
	 *     store.write(record, lease.fencingToken());
	 * }
	 * }</pre>
	 * A lease is not reentrant: a second {@code acquire} waits like any other owner.
	 * @param waitTime how long to wait; zero for a single attempt
	 * @return the lease; close it, from any thread, to release the lock
	 * @throws LockNotAcquiredException if the wait time ran out or the thread was interrupted (the interrupt
	 * flag is then set)
	 */
	public Lease acquire(Duration waitTime) {
		return acquire(waitTime, null);
	}

	/**
	 * Acquires the lock for a lease owned by no thread, with an explicit lease time.
	 * @param waitTime how long to wait; zero for a single attempt
	 * @param leaseTime the lease, not renewed; {@code null} for the registry default (the watchdog if unset)
	 * @return the lease; close it, from any thread, to release the lock
	 * @throws LockNotAcquiredException if the wait time ran out or the thread was interrupted
	 */
	public Lease acquire(Duration waitTime, @Nullable Duration leaseTime) {
		return tryAcquire(waitTime, leaseTime)
			.orElseThrow(() -> new LockNotAcquiredException(this.name, waitTime, null));
	}

	/**
	 * Like {@link #acquire(Duration, Duration)}, but an empty result instead of an exception on timeout.
	 * @param waitTime how long to wait; zero for a single attempt
	 * @param leaseTime the lease, not renewed; {@code null} for the registry default (the watchdog if unset)
	 * @return the lease, or empty if the wait time ran out
	 * @throws LockNotAcquiredException if the thread was interrupted (the interrupt flag is then set)
	 */
	public Optional<Lease> tryAcquire(Duration waitTime, @Nullable Duration leaseTime) {
		if (leaseTime != null) {
			requireLease(leaseTime);
		}
		try {
			LockHold hold = acquire(this.parts.holds().leaseOwner(), leaseTime, waitNanos(waitTime), true);
			return Optional.ofNullable(hold).map(this::lease);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockNotAcquiredException(this.name, waitTime, ex);
		}
	}

	/**
	 * Acquires the lock for a lease owned by no thread without blocking the calling thread; like
	 * {@link #acquireAsync(Duration, Duration)} with the registry's default lease.
	 * @param waitTime how long to wait; zero for a single attempt
	 * @return the lease, or completed exceptionally with {@link LockNotAcquiredException} when the wait time ran
	 * out
	 */
	public CompletionStage<Lease> acquireAsync(Duration waitTime) {
		return acquireAsync(waitTime, null);
	}

	/**
	 * Acquires the lock for a lease owned by no thread without blocking the calling thread:
	 * <pre>{@code
	 * lock.acquireAsync(Duration.ofSeconds(2), null)
	 *     .thenCompose((lease) -> store.writeAsync(record, lease.fencingToken())
	 *         .whenComplete((written, failure) -> lease.releaseAsync()));
	 * }</pre>
	 * Attempts are asynchronous calls; between them the wait runs on the registry's scheduler (one deployment:
	 * until the lock's release message arrives, the holder's lease ends or {@code maxPollInterval} passes; Redlock:
	 * a random pause). The stage completes on the driver's or the scheduler's thread: continue with the
	 * {@code ...Async} methods of {@link CompletionStage} for work that blocks. Should the caller cancel the stage,
	 * a lease acquired meanwhile is released. A local release hands the lock to waiting threads, not to
	 * asynchronous waiters, which try again when woken.
	 * @param waitTime how long to wait; zero or negative for a single attempt
	 * @param leaseTime the lease, not renewed; {@code null} for the registry default (the watchdog if unset,
	 * which renews asynchronous leases as it renews any other)
	 * @return the lease, releasable from any thread; completed exceptionally with
	 * {@link LockNotAcquiredException} when the wait time ran out, with Spring's {@code DataAccessException}
	 * when Redis failed, or with {@link IllegalStateException} when the registry stopped meanwhile
	 */
	public CompletionStage<Lease> acquireAsync(Duration waitTime, @Nullable Duration leaseTime) {
		long waitNanos = waitNanos(waitTime);
		if (leaseTime != null) {
			requireLease(leaseTime);
		}
		return acquireAsync(this.parts.holds().leaseOwner(), explicitLeaseMillis(leaseTime), waitTime, waitNanos,
				false);
	}

	/**
	 * Acquires for a lease that the watchdog renews, whatever the registry's default lease, held under a name that
	 * {@link #holder()} reports to every instance; without blocking the calling thread. For a holder that others must
	 * know by name, such as the leader of a role (leader election holds its roles this way); otherwise as
	 * {@link #acquireAsync(Duration, Duration)}. {@link Lease#certainValidity()} says how long the lease is certain.
	 * @param waitTime how long to wait; zero or negative for a single attempt
	 * @param holderName the name the holder goes by: not empty, without {@code /} or {@code :}
	 * @return the lease, releasable from any thread; completed exceptionally as
	 * {@link #acquireAsync(Duration, Duration)}'s
	 * @throws IllegalArgumentException naming {@code holderName} when it is empty or holds {@code /} or {@code :}
	 */
	public CompletionStage<Lease> acquireRenewedAsync(Duration waitTime, String holderName) {
		Objects.requireNonNull(holderName, "holderName");
		if (holderName.isEmpty() || holderName.indexOf('/') >= 0 || holderName.indexOf(':') >= 0) {
			throw new IllegalArgumentException(
					"holderName must not be empty nor contain '/' or ':', was '" + holderName + "'");
		}
		return acquireAsync(this.parts.holds().leaseOwner() + "/" + holderName, null, waitTime, waitNanos(waitTime),
				false);
	}

	/**
	 * One attempt at {@link #acquireRenewedAsync(Duration, String)}, for a caller to whom finding the lock held is
	 * the normal case, not a failure: a follower of a leader election trying for the leader lock. A lock held by
	 * another ends the wait's observation as {@code skipped}, with no error, as a {@link JobLock} run that finds its
	 * lock taken does, instead of a {@code timeout} with a {@link LockNotAcquiredException}.
	 * @param holderName the name the holder goes by: not empty, without {@code /} or {@code :}
	 * @return the lease, releasable from any thread, or empty when another holds the lock; completed exceptionally
	 * when Redis failed to answer, as {@link #acquireAsync(Duration, Duration)}'s
	 * @throws IllegalArgumentException naming {@code holderName} when it is empty or holds {@code /} or {@code :}
	 */
	public CompletionStage<Optional<Lease>> tryAcquireRenewedAsync(String holderName) {
		Objects.requireNonNull(holderName, "holderName");
		if (holderName.isEmpty() || holderName.indexOf('/') >= 0 || holderName.indexOf(':') >= 0) {
			throw new IllegalArgumentException(
					"holderName must not be empty nor contain '/' or ':', was '" + holderName + "'");
		}
		return acquireAsync(this.parts.holds().leaseOwner() + "/" + holderName, null, Duration.ZERO, 0, true)
			.handle((lease, failure) -> {
				if (failure == null) {
					return Optional.of(lease);
				}
				if (Stages.unwrap(failure) instanceof LockNotAcquiredException) {
					return Optional.<Lease>empty();
				}
				throw (failure instanceof CompletionException completion) ? completion
						: new CompletionException(failure);
			});
	}

	@Override
	public String toString() {
		return "RedisLock[" + this.name + "]";
	}

	/**
	 * Acquires for {@code owner}.
	 * @param waitNanos how long to wait, {@code 0} for one attempt, negative for ever
	 * @param interruptible whether an interrupt ends the wait, else it is remembered and restored
	 * @return the hold, or {@code null} when the wait ran out
	 */
	private @Nullable LockHold acquire(String owner, @Nullable Duration leaseTime, long waitNanos,
			boolean interruptible) throws InterruptedException {
		this.parts.background().ensureRunning();
		return this.parts.engine().acquire(this, owner, explicitLeaseMillis(leaseTime), waitNanos, interruptible);
	}

	/** Acquires a lease for {@code owner} without blocking, the registry started first. */
	private CompletionStage<Lease> acquireAsync(String owner, @Nullable Long leaseMillis, Duration waitTime,
			long waitNanos, boolean skipIfHeld) {
		try {
			this.parts.background().ensureRunning();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return this.parts.engine().acquireAsync(this, owner, leaseMillis, waitTime, waitNanos, skipIfHeld);
	}

	/** @return the lease asked for or the registry's default lease, or {@code null} for the watchdog */
	private @Nullable Long explicitLeaseMillis(@Nullable Duration leaseTime) {
		Duration lease = (leaseTime != null) ? leaseTime : this.parts.defaultLeaseTime();
		return (lease != null) ? lease.toMillis() : null;
	}

	private String threadOwner() {
		return this.parts.holds().threadOwner();
	}

	Lease lease(LockHold hold) {
		return new Release.Handle(hold);
	}

	/** @return the observation of a wait for this lock, started now; end it with {@link #report} */
	Observation startWait() {
		return this.parts.observations().startWait(this.group);
	}

	/**
	 * Reports how a wait ended to its observation, which the lock meters come from: a timeout ends the
	 * observation with a {@link LockNotAcquiredException}, whether or not the caller is thrown one (a
	 * {@code tryLock} returns {@code false}), so that a trace shows the wait that failed. Nothing is made when
	 * nothing observes.
	 */
	void report(AcquireResult result, long startedNanos, Observation wait) {
		if (!wait.isNoop()) {
			Observations.stop(wait, result.name().toLowerCase(Locale.ROOT), (result == AcquireResult.TIMEOUT)
					? new LockNotAcquiredException(this.name, Duration.ofNanos(System.nanoTime() - startedNanos), null)
					: null);
		}
	}

	private void requireLease(Duration leaseTime) {
		Objects.requireNonNull(leaseTime, "leaseTime");
		this.parts.engine().requireLease(leaseTime);
	}

	private static long waitNanos(Duration waitTime) {
		Objects.requireNonNull(waitTime, "waitTime");
		return waitTime.isNegative() ? 0 : saturatedNanos(waitTime);
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
	 * Who holds a lock, as Redis stores it ({@link #holder()}).
	 * @param name the name the holder acquired under ({@link #acquireRenewedAsync(Duration, String)}), or
	 * {@code null} when it gave none
	 * @param fencingToken the holder's fencing token
	 */
	public record Holder(@Nullable String name, long fencingToken) {
	}

}
