package io.rediskit.lock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

/**
 * A named bound on concurrent holders across instances, from {@link SemaphoreRegistry#getSemaphore(String, int)}:
 * at most {@link #total()} permits are held at once, whoever holds them.
 * <p>
 * <b>Leases.</b> Each acquisition takes one or more permits for a {@link Lease} owned by no thread, which any
 * thread closes to give them all back. Without an explicit lease time the lease is the registry's watchdog
 * timeout, renewed every third of it while the lease is open; a holder that crashes (or is {@code kill -9}ed)
 * stops renewing, and its permits come back to the semaphore when its lease ends, at most one watchdog timeout
 * later: a crashed holder never leaks permits. A renewal that finds the lease ended (the holder was paused or cut
 * off from Redis longer than the lease) marks it lost: the listeners hear of it and closing it throws
 * {@link LockLeaseLostException}, since its permits may be held by someone else by then.
 * <p>
 * <b>Fencing.</b> Every acquisition gets a fencing token ({@link Lease#fencingToken()}) that strictly increases per
 * semaphore name across all clients, so a resource can tell the newest holders from a paused one.
 * <p>
 * <b>Total.</b> The total is the one this handle was created with, unless {@link #setTotal(int)} set one at run
 * time: that one is stored in Redis and applies to every instance until {@link #clearTotal()} (or until the
 * semaphore has been idle for a day and its state expired). Shrinking the total revokes nothing: holders keep their
 * permits, and acquisitions wait until the permits held are below the new total. Give every instance the same
 * configured total: an instance checks its own against the permits held.
 * <p>
 * <b>Waiting.</b> A waiter attempts again when a release message arrives (one per permit freed), when the
 * earliest lease ends or after the registry's {@code maxPollInterval}, whichever comes first. Waiters are not
 * queued: a caller asking for many permits may be overtaken by callers asking for few.
 * <p>
 * <b>Limits.</b> A lease, not a perfect bound: a holder paused past its lease, or a failover that loses the
 * semaphore's keys, can let more than the total hold at once. One deployment only; there is no Redlock variant.
 */
public final class RedisSemaphore {

	private final RedisLock identity;

	private final SemaphoreEngine engine;

	private final int total;

	RedisSemaphore(RedisLock identity, SemaphoreEngine engine, int total) {
		this.identity = identity;
		this.engine = engine;
		this.total = total;
	}

	/** @return the full semaphore name */
	public String name() {
		return this.identity.name();
	}

	/** @return the name metrics are tagged with */
	public String group() {
		return this.identity.group();
	}

	/** @return the total this handle was created with; {@link #setTotal(int)} may have replaced it in Redis */
	public int total() {
		return this.total;
	}

	/**
	 * One permit, waiting up to the registry's default wait time.
	 * @return the lease; close it to give the permit back
	 * @throws SemaphoreNotAcquiredException if the wait ran out or the thread was interrupted (the flag is set)
	 */
	public Lease acquire() {
		return acquire(1, this.identity.parts().defaultWaitTime());
	}

	/**
	 * Takes permits for a lease renewed by the watchdog:
	 * <pre>{@code
	 * try (Lease lease = semaphore.acquire(1, Duration.ofSeconds(5))) {
	 *     report.render(lease.fencingToken());
	 * }
	 * }</pre>
	 * @param permits how many, at least 1 and at most the total
	 * @param waitTime how long to wait; zero or negative for a single attempt
	 * @return the lease; close it, from any thread, to give the permits back
	 * @throws SemaphoreNotAcquiredException if the wait ran out or the thread was interrupted (the flag is set)
	 * @throws IllegalArgumentException if {@code permits} is out of range
	 */
	public Lease acquire(int permits, Duration waitTime) {
		return acquire(permits, waitTime, null);
	}

	/**
	 * Takes permits, with an explicit lease time.
	 * @param permits how many, at least 1 and at most the total
	 * @param waitTime how long to wait; zero or negative for a single attempt
	 * @param leaseTime the lease, not renewed; {@code null} for the registry's default (the watchdog if unset)
	 * @return the lease
	 * @throws SemaphoreNotAcquiredException if the wait ran out or the thread was interrupted (the flag is set)
	 */
	public Lease acquire(int permits, Duration waitTime, @Nullable Duration leaseTime) {
		return tryAcquire(permits, waitTime, leaseTime)
			.orElseThrow(() -> new SemaphoreNotAcquiredException(name(), permits, waitTime, null));
	}

	/**
	 * Like {@link #acquire(int, Duration)}, but an empty result instead of an exception when the wait runs out.
	 * @param permits how many, at least 1 and at most the total
	 * @param waitTime how long to wait; zero or negative for a single attempt
	 * @return the lease, or empty
	 */
	public Optional<Lease> tryAcquire(int permits, Duration waitTime) {
		return tryAcquire(permits, waitTime, null);
	}

	/**
	 * Like {@link #acquire(int, Duration, Duration)}, but an empty result instead of an exception on timeout.
	 * @param permits how many, at least 1 and at most the total
	 * @param waitTime how long to wait; zero or negative for a single attempt
	 * @param leaseTime the lease, not renewed; {@code null} for the registry's default (the watchdog if unset)
	 * @return the lease, or empty
	 * @throws SemaphoreNotAcquiredException if the thread was interrupted (the flag is then set)
	 */
	public Optional<Lease> tryAcquire(int permits, Duration waitTime, @Nullable Duration leaseTime) {
		requirePermits(permits);
		long waitNanos = waitNanos(waitTime);
		Long leaseMillis = leaseMillis(leaseTime);
		this.identity.parts().background().ensureRunning();
		try {
			LockHold hold = new SemaphoreAcquisition(this, owner(), permits, leaseMillis, waitTime, waitNanos).run();
			return Optional.ofNullable(hold).map(this.identity::lease);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new SemaphoreNotAcquiredException(name(), permits, waitTime, ex);
		}
	}

	/**
	 * Takes permits without blocking the calling thread, for a lease renewed by the watchdog. For Reactor:
	 * <pre>{@code
	 * Mono.usingWhen(Mono.fromCompletionStage(() -> semaphore.acquireAsync(1, Duration.ofSeconds(5))),
	 *         (lease) -> renderReport(),
	 *         (lease) -> Mono.fromCompletionStage(lease::releaseAsync));
	 * }</pre>
	 * @param permits how many, at least 1 and at most the total
	 * @param waitTime how long to wait; zero or negative for a single attempt
	 * @return the lease, completed on the driver's or the scheduler's thread; exceptionally with
	 * {@link SemaphoreNotAcquiredException} when the wait ran out, with Spring's {@code DataAccessException} when
	 * Redis failed, with {@link IllegalArgumentException} when {@code permits} exceeds the total in force. Cancel it
	 * to stop waiting; permits taken meanwhile are given back.
	 */
	public CompletionStage<Lease> acquireAsync(int permits, Duration waitTime) {
		return acquireAsync(permits, waitTime, null);
	}

	/**
	 * {@link #acquireAsync(int, Duration)} with an explicit lease time.
	 * @param permits how many, at least 1 and at most the total
	 * @param waitTime how long to wait; zero or negative for a single attempt
	 * @param leaseTime the lease, not renewed; {@code null} for the registry's default (the watchdog if unset)
	 * @return the lease, as {@link #acquireAsync(int, Duration)}
	 */
	public CompletionStage<Lease> acquireAsync(int permits, Duration waitTime, @Nullable Duration leaseTime) {
		requirePermits(permits);
		long waitNanos = waitNanos(waitTime);
		Long leaseMillis = leaseMillis(leaseTime);
		try {
			this.identity.parts().background().ensureRunning();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return new AsyncSemaphoreAcquisition(this, owner(), permits, leaseMillis, waitTime, waitNanos).start();
	}

	/** @return the permits free now: the total in force less the permits held by leases that have not ended */
	public int availablePermits() {
		return Stages.join(availablePermitsAsync());
	}

	/** @return {@link #availablePermits()}, without blocking the calling thread */
	public CompletionStage<Integer> availablePermitsAsync() {
		return engine().scripts.permits(this.identity.keys(), this.total)
			.thenApply((permits) -> Math.max(permits.total() - permits.held(), 0));
	}

	/**
	 * Reads the total in force and the permits held now, by leases that have not ended, in one read-only script.
	 * @return both
	 */
	public SemaphorePermits permits() {
		return Stages.join(permitsAsync());
	}

	/** @return {@link #permits()}, without blocking the calling thread */
	public CompletionStage<SemaphorePermits> permitsAsync() {
		return engine().scripts.permits(this.identity.keys(), this.total)
			.thenApply((permits) -> new SemaphorePermits(permits.total(), permits.held()));
	}

	/**
	 * Sets the total for every instance, stored in Redis. Growing it wakes waiters; shrinking it revokes nothing:
	 * holders keep their permits, and acquisitions wait until the permits held are below the new total.
	 * @param total the new total, at least 1
	 * @return the permits held now, which may exceed the new total
	 */
	public int setTotal(int total) {
		if (total < 1) {
			throw new IllegalArgumentException("total must be at least 1, was " + total);
		}
		return Stages.join(engine().scripts.setTotal(this.identity.keys(), total)).intValue();
	}

	/**
	 * Removes the total {@link #setTotal(int)} stored, so that each handle's own total applies again.
	 * @return the permits held now
	 */
	public int clearTotal() {
		return Stages.join(engine().scripts.setTotal(this.identity.keys(), 0)).intValue();
	}

	@Override
	public String toString() {
		return "RedisSemaphore[" + name() + ", total " + this.total + "]";
	}

	/** The lock-family identity the shell records this semaphore's holds under; never handed out. */
	RedisLock identity() {
		return this.identity;
	}

	/** @return the engine of its registry, the one its holds are renewed and released through */
	SemaphoreEngine engine() {
		return this.engine;
	}

	private String owner() {
		return this.identity.parts().holds().leaseOwner();
	}

	private static void requirePermits(int permits) {
		if (permits < 1) {
			throw new IllegalArgumentException("permits must be at least 1, was " + permits);
		}
	}

	private @Nullable Long leaseMillis(@Nullable Duration leaseTime) {
		if (leaseTime != null) {
			engine().requireLease(leaseTime);
			return leaseTime.toMillis();
		}
		Duration lease = this.identity.parts().defaultLeaseTime();
		return (lease != null) ? lease.toMillis() : null;
	}

	private static long waitNanos(Duration waitTime) {
		Objects.requireNonNull(waitTime, "waitTime");
		if (waitTime.isNegative()) {
			return 0;
		}
		try {
			return waitTime.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

}
