package io.rediskit.lock;

import java.time.Clock;
import java.util.List;
import java.util.Objects;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.ReleaseSignals;
import io.rediskit.support.ScriptExecutor;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Hands out fair locks on one Redis deployment (standalone, Sentinel or Cluster): {@link RedisLock}s granted in
 * arrival order across every client, where {@link LockRegistry}'s locks go to whichever waiter tries first after
 * a release. The handle, the watchdog, fencing tokens, lost-lease reports and the listener are the lock's
 * ({@link RedisLock}, {@link Lease}, {@link LockListener}); only the order differs.
 * <p>
 * <b>Order.</b> A waiter that finds the lock taken takes a place at the end of a line kept in Redis, numbered by
 * arrival. A free lock goes to the first in line only, so a newcomer never passes a waiter; the last release
 * wakes the first in line by its owner id on the lock's channel, in whichever JVM it waits. Arrival is when the
 * waiter's first attempt reached Redis.
 * <p>
 * <b>Dead waiters.</b> Each attempt of a waiter renews its place for {@link WaiterLineSpec#waiterTimeout()}, and
 * live waiters attempt at least every third of it. A waiter whose process died, or stopped ({@code SIGSTOP}, a
 * long pause), loses its place when it ends, so it delays those behind it by at most
 * {@link WaiterLineSpec#deadWaiterDelayBound()} (waiter timeout plus the longest sleep between attempts; 6 s by
 * default). A waiter that pauses longer than the waiter timeout and resumes joins the end of the line again.
 * <p>
 * <b>Keys.</b> {@code <prefix>fairlock:{<name>}} (owner, hold count, fencing token; the lease as its TTL),
 * {@code :fence}, {@code :line} (waiters by arrival number), {@code :places} (waiters by the end of their place),
 * all in one hash slot and each with a TTL; the channel {@code :released}.
 * <p>
 * <b>Limits.</b> A lease, as the lock: a pause past the lease or a failover that loses the key can let two
 * owners overlap, so fence what matters. Fair locks cost one more round trip's worth of work per contended
 * acquisition than the lock (the line), and every waiter polls at least every third of the waiter timeout. There
 * is no Redlock variant.
 */
public final class FairLockRegistry extends AbstractLockRegistry {

	private final LockShell<FairEngine> shell;

	private final WaiterLineSpec spec;

	/**
	 * Creates a registry. It starts nothing until {@link #start()} or its first acquisition.
	 * @param scripts runs the scripts
	 * @param connectionFactory for the wake-up subscription and the plain reads ({@link RedisLock#isLocked()})
	 * @param keyNaming how keys are named
	 * @param spec lease, watchdog, wait and waiter defaults
	 * @param listeners told about acquisitions, releases, renewals and lost leases, in order
	 * @param clock the clock {@link HeldLock#heldSince()} is read from
	 */
	public FairLockRegistry(ScriptExecutor scripts, RedisConnectionFactory connectionFactory, KeyNaming keyNaming,
			WaiterLineSpec spec, List<? extends LockListener> listeners, Clock clock) {
		this.shell = new LockShell<>(FairLockRegistry.class, "fairlock", keyNaming,
				Objects.requireNonNull(spec, "spec must not be null").watchdogTimeout(),
				spec.defaultLeaseTime(), spec.defaultWaitTime(), listeners, clock,
				"Fair locks cannot reach Redis; fair lock calls fail after the command timeout",
				(guarded, outages) -> new FairEngine(spec,
						new FairLockScripts(Objects.requireNonNull(scripts, "scripts must not be null")),
						new LockScripts(scripts, Objects.requireNonNull(connectionFactory,
								"connectionFactory must not be null")),
						new ReleaseSignals(connectionFactory, "the fair locks' release channels")),
				FairLockScripts::keys);
		this.spec = spec;
	}

	/**
	 * Creates a registry with default key naming and spec, no listeners, and scripts run on the factory's
	 * connections.
	 * @param connectionFactory the application's Redis connections
	 */
	public FairLockRegistry(RedisConnectionFactory connectionFactory) {
		this(ScriptExecutor.of(connectionFactory), connectionFactory, KeyNaming.defaults(), WaiterLineSpec.defaults(),
				List.of(), Clock.systemUTC());
	}

	/** @return the spec this registry runs with */
	public WaiterLineSpec spec() {
		return this.spec;
	}

	@Override
	LockShell<FairEngine> shell() {
		return this.shell;
	}

}
