package io.rediskit.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import io.rediskit.lock.LockListener.AcquireResult;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A distributed, reentrant lock on one Redis key, from {@link LockRegistry#getLock(String)}.
 * <p>
 * <b>Semantics.</b> Acquiring sets the key only if it is absent (or re-enters it when the same owner holds it)
 * with an owner token and a lease, in one script; releasing checks the owner, decrements the hold count and
 * deletes the key at zero, in one script, then wakes waiters by pub/sub. A key is never deleted by anyone but
 * its owner. The {@link Lock} methods are owned by the calling thread (reentrant per thread, released by the
 * same thread); {@link #acquire(Duration)} returns a {@link Lease} owned by no thread, which any thread may
 * close.
 * <p>
 * <b>Leases.</b> Without an explicit lease time the lease is the factory's default lease or, when that is
 * unset, the watchdog timeout, renewed every third of it while the owner holds the lock. If a renewal finds
 * the lock gone or taken, or cannot reach Redis for a whole lease, the hold is <em>lost</em>: the
 * {@link LockListener} hears of it once and the owner's later release throws {@link LockLeaseLostException}
 * without touching the key. With an explicit lease time nothing is renewed.
 * <p>
 * <b>Fencing.</b> Every first acquisition gets a fencing token that strictly increases per lock name across
 * all clients ({@link #getFencingToken()}, {@link Lease#fencingToken()}). A resource that remembers the
 * highest token it accepted and rejects lower ones stays safe when a paused holder wakes up after losing the
 * lock.
 * <p>
 * <b>Limits.</b> It is a lease, not a perfect mutex: a process pause, a network delay or a server clock jump
 * longer than the lease, or a failover that loses the key, can let two owners overlap. Fence what matters.
 * <b>Failures.</b> Redis errors surface as Spring's {@code DataAccessException}, a
 * {@code QueryTimeoutException} when the command timeout elapses; an acquisition that failed that way is
 * undone if it took effect, so it leaves no key behind beyond its lease.
 * {@link #newCondition()} is not supported.
 */
public final class RedisLock implements Lock {

	private static final Log logger = LogFactory.getLog(RedisLock.class);

	private final LockRegistry factory;

	private final String name;

	private final String group;

	private final String key;

	private final String channel;

	RedisLock(LockRegistry factory, String name, String group) {
		this.factory = factory;
		this.name = name;
		this.group = group;
		this.key = factory.key(name);
		this.channel = this.key + ":released";
	}

	/** @return the full lock name */
	public String getName() {
		return this.name;
	}

	/** @return the group name, the tag its metrics carry */
	public String getGroup() {
		return this.group;
	}

	String key() {
		return this.key;
	}

	/** Waits as long as it takes, ignoring interrupts (the interrupt flag is restored afterwards). */
	@Override
	public void lock() {
		try {
			acquire(this.factory.threadOwner(), null, -1, false);
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
		requirePositive(leaseTime, "leaseTime");
		try {
			acquire(this.factory.threadOwner(), leaseTime, -1, false);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("Uninterruptible wait was interrupted", ex);
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		acquire(this.factory.threadOwner(), null, -1, true);
	}

	/** One attempt, no waiting. */
	@Override
	public boolean tryLock() {
		try {
			return acquire(this.factory.threadOwner(), null, 0, false) != null;
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
		return acquire(this.factory.threadOwner(), null, waitNanos(waitTime), true) != null;
	}

	/**
	 * Waits up to {@code waitTime} for the lock and holds it for at most {@code leaseTime}.
	 * @param waitTime how long to wait; zero or negative for a single attempt
	 * @param leaseTime the lease, not renewed; {@code null} for the factory default (the watchdog if unset)
	 * @return whether the current thread holds the lock
	 * @throws InterruptedException if interrupted while waiting; nothing is held then
	 */
	public boolean tryLock(Duration waitTime, @Nullable Duration leaseTime) throws InterruptedException {
		if (leaseTime != null) {
			requirePositive(leaseTime, "leaseTime");
		}
		return acquire(this.factory.threadOwner(), leaseTime, waitNanos(waitTime), true) != null;
	}

	/**
	 * Releases one hold of the current thread; the lock is free when the last hold is released.
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 * @throws LockLeaseLostException if the hold was lost before this release
	 */
	@Override
	public void unlock() {
		LockHold hold = this.factory.hold(this.key, this.factory.threadOwner());
		if (hold == null) {
			throw new IllegalMonitorStateException("Lock '" + this.name + "' is not held by the current thread");
		}
		release(hold);
	}

	/** @throws UnsupportedOperationException always */
	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException("RedisLock does not support conditions");
	}

	/** @return whether any owner holds the lock now (one round trip) */
	public boolean isLocked() {
		return this.factory.isLocked(this.key);
	}

	/** @return whether the current thread holds the lock, as Redis sees it now (one round trip) */
	public boolean isHeldByCurrentThread() {
		return getHoldCount() > 0;
	}

	/** @return how many times the current thread holds the lock, as Redis sees it now (one round trip) */
	public int getHoldCount() {
		return this.factory.holdCount(this.key, this.factory.threadOwner());
	}

	/**
	 * The fencing token of the current thread's hold.
	 * @return the token
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 */
	public long getFencingToken() {
		LockHold hold = this.factory.hold(this.key, this.factory.threadOwner());
		if (hold == null || hold.lost) {
			throw new IllegalMonitorStateException("Lock '" + this.name + "' is not held by the current thread");
		}
		return hold.fencingToken;
	}

	/**
	 * Acquires the lock for a lease owned by no thread, waiting up to the factory's default wait time.
	 * @return the lease; close it to release the lock
	 * @throws LockNotAcquiredException if the wait time ran out or the thread was interrupted (the interrupt
	 * flag is then set)
	 */
	public Lease acquire() {
		return acquire(this.factory.spec().defaultWaitTime());
	}

	/**
	 * Acquires the lock for a lease owned by no thread:
	 * <pre>{@code
	 * try (RedisLock.Lease lease = lock.acquire(Duration.ofSeconds(2))) {
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
	 * @param leaseTime the lease, not renewed; {@code null} for the factory default (the watchdog if unset)
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
	 * @param leaseTime the lease, not renewed; {@code null} for the factory default (the watchdog if unset)
	 * @return the lease, or empty if the wait time ran out
	 * @throws LockNotAcquiredException if the thread was interrupted (the interrupt flag is then set)
	 */
	public Optional<Lease> tryAcquire(Duration waitTime, @Nullable Duration leaseTime) {
		if (leaseTime != null) {
			requirePositive(leaseTime, "leaseTime");
		}
		try {
			LockHold hold = acquire(this.factory.leaseOwner(), leaseTime, waitNanos(waitTime), true);
			return Optional.ofNullable(hold).map(LeaseHandle::new);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockNotAcquiredException(this.name, waitTime, ex);
		}
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
		long started = System.nanoTime();
		if (interruptible && Thread.interrupted()) {
			report(AcquireResult.INTERRUPTED, started);
			throw new InterruptedException("Interrupted before acquiring lock '" + this.name + "'");
		}
		LockHold current = this.factory.hold(this.key, owner);
		boolean reentry = current != null && !current.lost;
		Request request;
		if (reentry) {
			// A re-entry keeps the lease the lock was taken with: a shorter one would cut the outer hold short.
			request = new Request(owner, started, current.leaseMillis, current.watchdog, interruptible);
		}
		else {
			Duration lease = (leaseTime != null) ? leaseTime : this.factory.spec().defaultLeaseTime();
			request = new Request(owner, started,
					(lease != null) ? lease.toMillis() : this.factory.spec().watchdogTimeout().toMillis(),
					lease == null, interruptible);
		}
		long maxPollNanos = this.factory.spec().maxPollInterval().toNanos();
		// An uninterruptible wait remembers the interrupt and restores it at the end.
		boolean interruptedMeanwhile = !interruptible && Thread.interrupted();
		ReleaseSignals.Waiter waiter = null;
		// Local threads already wait: queue behind them rather than race them, and be handed the lock in turn.
		boolean attempt = !(waitNanos != 0 && !reentry && this.factory.signals().hasWaiters(this.channel));
		if (!attempt) {
			waiter = this.factory.signals().join(this.channel, owner, request.leaseMillis);
			// The others left meanwhile and this thread subscribed anew: nobody else will notice a release.
			attempt = waiter.subscribed;
		}
		long ttlMillis = -1;
		try {
			while (true) {
				if (attempt) {
					Attempt result = attempt(request, reentry, waiter);
					if (result.hold != null) {
						report(AcquireResult.ACQUIRED, started);
						return result.hold;
					}
					if (result.interrupted) {
						interruptedMeanwhile = true;
						if (waiter != null) {
							waiter.rejoin();
						}
						continue;
					}
					if (reentry) {
						// The owner thought it held the lock, but another owner has it: the hold was lost.
						this.factory.markLost(current);
						report(AcquireResult.ERROR, started);
						throw new LockLeaseLostException(this.name, current.fencingToken);
					}
					ttlMillis = result.ttlMillis;
				}
				attempt = true;
				long remaining = (waitNanos < 0) ? Long.MAX_VALUE : waitNanos - (System.nanoTime() - started);
				if (remaining <= 0) {
					LockHold late = settle(waiter, request);
					report((late != null) ? AcquireResult.ACQUIRED : AcquireResult.TIMEOUT, started);
					return late;
				}
				if (waiter == null) {
					waiter = this.factory.signals().join(this.channel, owner, request.leaseMillis);
					if (waiter.subscribed) {
						// A release between the attempt and the subscription woke nobody: try again at once.
						continue;
					}
				}
				long sleep = Math.min(remaining, maxPollNanos);
				if (ttlMillis != -1) {
					// PTTL 0 (the lease's last millisecond) or -2 (just expired): the lock is free within a
					// millisecond, and an expiry publishes nothing, so only a prompt retry notices.
					sleep = Math.min(sleep, TimeUnit.MILLISECONDS.toNanos(Math.max(ttlMillis, 1)));
				}
				if (waiter.park(sleep)) {
					if (interruptible) {
						LockHold handed = settle(waiter, request);
						if (handed != null) {
							// Handed over as the interrupt came: the lock is held, the interrupt stays pending.
							Thread.currentThread().interrupt();
							report(AcquireResult.ACQUIRED, started);
							return handed;
						}
						report(AcquireResult.INTERRUPTED, started);
						throw new InterruptedException("Interrupted while waiting for lock '" + this.name + "'");
					}
					interruptedMeanwhile = true;
				}
				if (waiter.isClaimed()) {
					long token = waiter.awaitResolution();
					if (token > 0) {
						report(AcquireResult.ACQUIRED, started);
						return held(request, token, 1);
					}
					waiter.rearm();
					if (Thread.interrupted()) {
						if (interruptible) {
							report(AcquireResult.INTERRUPTED, started);
							throw new InterruptedException("Interrupted while waiting for lock '" + this.name + "'");
						}
						interruptedMeanwhile = true;
					}
				}
			}
		}
		finally {
			if (waiter != null) {
				this.factory.signals().leave(waiter);
			}
			if (interruptedMeanwhile) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * One run of the acquire script. If it fails with its outcome unknown it is undone, unless a releaser
	 * handed the lock to this waiter meanwhile.
	 */
	private Attempt attempt(Request request, boolean reentry, ReleaseSignals.@Nullable Waiter waiter)
			throws InterruptedException {
		String requestId = this.factory.nextRequestId();
		List<Object> reply;
		try {
			reply = this.factory.acquire(this.key, request.owner, request.leaseMillis, requestId, reentry);
		}
		catch (RuntimeException ex) {
			LockHold handed = settle(waiter, request);
			if (handed != null) {
				return new Attempt(handed, 0, false);
			}
			undo(request, requestId, ex);
			if (Thread.interrupted()) {
				if (request.interruptible) {
					report(AcquireResult.INTERRUPTED, request.startedNanos);
					InterruptedException interrupted = new InterruptedException(
							"Interrupted while acquiring lock '" + this.name + "'");
					interrupted.initCause(ex);
					throw interrupted;
				}
				return new Attempt(null, 0, true);
			}
			report(AcquireResult.ERROR, request.startedNanos);
			throw ex;
		}
		if (((Long) reply.get(0)) == 1L) {
			// A claim racing this attempt handed over the same hold: settle it, then keep this result.
			settle(waiter, request);
			return new Attempt(held(request, (Long) reply.get(1), ((Long) reply.get(2)).intValue()), 0, false);
		}
		return new Attempt(null, (Long) reply.get(1), false);
	}

	/**
	 * Leaves the wait; a waiter a releaser has already claimed takes what it is handed.
	 * @return the hold handed over, or {@code null}
	 */
	private @Nullable LockHold settle(ReleaseSignals.@Nullable Waiter waiter, Request request) {
		if (waiter == null || waiter.withdraw()) {
			return null;
		}
		long token = waiter.awaitResolution();
		return (token > 0) ? held(request, token, 1) : null;
	}

	private void undo(Request request, String requestId, RuntimeException failure) {
		// The outcome of the failed attempt is unknown: undo it should it have taken effect.
		try {
			this.factory.release(this.key, request.owner, request.leaseMillis, requestId, true, false, null, 0);
		}
		catch (RuntimeException ex) {
			failure.addSuppressed(ex);
			logger.debug("Could not undo a failed acquisition of lock '" + this.name + "'; its lease will end it", ex);
		}
	}

	/**
	 * Records a successful acquisition. Hold counts are the client's: the stored count only backs replays
	 * and re-entries up, since a re-entry whose reply was lost may have raised it.
	 */
	private LockHold held(Request request, long token, int count) {
		LockHold hold = this.factory.hold(this.key, request.owner);
		if (count == 1 || hold == null || hold.lost) {
			hold = new LockHold(this, request.owner, token, request.leaseMillis, request.watchdog,
					Instant.now(this.factory.clock()), System.nanoTime());
			this.factory.register(this.key, hold);
		}
		else {
			hold.extendedNanos = System.nanoTime();
			hold.holdCount++;
		}
		return hold;
	}

	private void release(LockHold hold) {
		if (hold.lost) {
			releaseLost(hold);
			return;
		}
		hold.releasing = true;
		boolean lastHold = hold.holdCount == 1;
		// The last hold goes straight to a local waiter when there is one: no pub/sub, no race.
		ReleaseSignals.Waiter next = lastHold ? this.factory.signals().claimNext(this.channel) : null;
		long handedToken = 0;
		long left;
		try {
			long[] reply = this.factory.release(this.key, hold.owner, hold.leaseMillis, this.factory.nextRequestId(),
					false, lastHold, (next != null) ? next.owner : null, (next != null) ? next.leaseMillis : 0);
			left = reply[0];
			handedToken = (left == 0) ? reply[1] : 0;
		}
		catch (RuntimeException ex) {
			// Give the hold up: nobody renews it any more and its lease ends it. Never a renewed orphan.
			this.factory.forget(this.key, hold);
			throw ex;
		}
		finally {
			if (next != null) {
				// Resolve the claim whatever happened. Without a hand-off the waiter tries again itself; should
				// a hand-off whose reply was lost have happened after all, its attempt adopts the lock.
				if (handedToken > 0) {
					next.handOver(handedToken);
				}
				else {
					next.retry();
				}
			}
		}
		if (left > 0) {
			hold.holdCount--;
			hold.releasing = false;
			return;
		}
		if (left == 0) {
			this.factory.forget(this.key, hold);
			this.factory.listener().onRelease(this.group, Duration.ofNanos(System.nanoTime() - hold.acquiredNanos));
			return;
		}
		this.factory.markLost(hold);
		releaseLost(hold);
	}

	private void releaseLost(LockHold hold) {
		hold.holdCount--;
		if (hold.holdCount <= 0) {
			this.factory.forget(this.key, hold);
		}
		throw new LockLeaseLostException(this.name, hold.fencingToken);
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

	private static void requirePositive(Duration value, String name) {
		if (value.isNegative() || value.isZero() || value.toMillis() < 1) {
			throw new IllegalArgumentException(name + " must be at least 1ms, was " + value);
		}
	}

	private void report(AcquireResult result, long startedNanos) {
		this.factory.listener().onAcquire(this.group, result, Duration.ofNanos(System.nanoTime() - startedNanos));
	}

	/** What one acquisition asks for. */
	private record Request(String owner, long startedNanos, long leaseMillis, boolean watchdog,
			boolean interruptible) {
	}

	/** The outcome of one attempt: a hold, or the current owner's remaining lease, or an interrupt to retry. */
	private record Attempt(@Nullable LockHold hold, long ttlMillis, boolean interrupted) {
	}

	/**
	 * A hold on the lock owned by no thread, from {@link RedisLock#acquire(Duration)}. Close it, from any
	 * thread, to release the lock; closing again does nothing.
	 */
	public interface Lease extends AutoCloseable {

		/** @return the full lock name */
		String lockName();

		/**
		 * The fencing token of this hold: strictly greater than every token handed out for this lock name
		 * before. Pass it with every write to the protected resource and have the resource reject tokens lower
		 * than the highest it has seen.
		 * @return the token
		 */
		long fencingToken();

		/** @return whether this lease is neither released nor known to be lost */
		boolean isActive();

		/**
		 * Releases the lock.
		 * @throws LockLeaseLostException if the lease was lost before this release
		 */
		@Override
		void close();

	}

	private final class LeaseHandle implements Lease {

		private final LockHold hold;

		private boolean closed;

		LeaseHandle(LockHold hold) {
			this.hold = hold;
		}

		@Override
		public String lockName() {
			return RedisLock.this.name;
		}

		@Override
		public long fencingToken() {
			return this.hold.fencingToken;
		}

		@Override
		public boolean isActive() {
			synchronized (this) {
				return !this.closed && !this.hold.lost;
			}
		}

		@Override
		public void close() {
			synchronized (this) {
				if (this.closed) {
					return;
				}
				this.closed = true;
			}
			release(this.hold);
		}

		@Override
		public String toString() {
			return "Lease[" + RedisLock.this.name + ", token " + this.hold.fencingToken + "]";
		}

	}

}
