package io.rediskit.lock;

import java.time.Clock;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

import io.rediskit.support.Background;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.ReleaseSignals;
import io.rediskit.support.ScriptExecutor;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Hands out {@link RedisLock}s on one Redis deployment (standalone, Sentinel or Cluster); the entry point of the
 * lock on its single-node engine. Create one per application and share it (the Spring Boot starter
 * registers one as a bean); locks are cheap, so {@code getLock} returns a new handle each time and keeps no
 * cache: client memory is bounded by the locks held and waited for at a time, however many names are used.
 * {@link RedlockRegistry} offers the same {@link Locks} over several independent servers.
 * <p>
 * <b>Owners.</b> Each registry has its own random instance id; owners are that id plus the thread id
 * ({@link java.util.concurrent.locks.Lock} methods) or plus a lease number ({@link Lease}).
 * {@link #heldLocks()} lists what this registry's owners hold.
 * <p>
 * <b>Lifecycle.</b> The constructor starts nothing. {@link #start()} (called by the Spring container, as a
 * {@link SmartLifecycle}) starts the background work: the watchdog, which renews the leases of all its locks
 * every third of the watchdog timeout, and the pub/sub subscription that wakes waiters, on the threads both run
 * on. Used outside a container, the registry starts on the first acquisition. {@link #stop()} stops that work
 * (held locks are not released: their leases run out unless the registry starts again), and {@link #close()}
 * stops it for good. The threads are the application's shared {@link Background} ({@link #setBackground}, which
 * the starter calls); without one, the registry makes its own on the first start: one daemon scheduler thread,
 * which never blocks on Redis, and a new thread per blocking task (opening the pub/sub connection), virtual on
 * Java 21 and later.
 * <p>
 * <b>Keys.</b> {@code <prefix>lock:{<name>}} holds the owner, hold count and fencing token and carries the lease
 * as its TTL; {@code <prefix>lock:{<name>}:fence} keeps the last fencing token for a day after the last
 * acquisition; {@code <prefix>lock:{<name>}:released} is the channel told when the lock becomes free. All share
 * one hash slot. The pub/sub connection stays open between waits, until the registry stops.
 * <p>
 * <b>Failures.</b> While Redis is unavailable, each call fails after one command timeout and the registry logs
 * one warning per {@value #OUTAGE_LOG_INTERVAL_SECONDS} seconds, not a stack trace per call.
 * <p>
 * <b>Replication.</b> Redis replicates asynchronously: on Sentinel or Cluster a failover can lose a lock the
 * old master acknowledged. With {@link LockSpec#replicaWait()} enabled, acquisitions and renewals wait for
 * replicas ({@code WAIT}) and a shortfall fails the acquisition or is reported, as the spec says.
 */
public final class LockRegistry extends AbstractLockRegistry {

	private final LockShell<SingleNodeEngine> shell;

	/**
	 * The lifecycle phase: after the connection factory (phase 0) starts and before it stops, and before the web
	 * server starts and after it stopped, so that requests finishing in a graceful shutdown can still lock.
	 */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	static final long OUTAGE_LOG_INTERVAL_SECONDS = 10;

	private final LockSpec spec;

	/**
	 * Creates a registry with default key naming and spec, no listeners, and scripts run on the factory's
	 * connections.
	 * @param connectionFactory the application's Redis connections
	 */
	public LockRegistry(RedisConnectionFactory connectionFactory) {
		this(ScriptExecutor.of(connectionFactory), connectionFactory, KeyNaming.defaults(), LockSpec.defaults(),
				List.of(), Clock.systemUTC());
	}

	/**
	 * Creates a registry. It starts nothing until {@link #start()} or its first acquisition.
	 * @param scripts runs the lock's scripts
	 * @param connectionFactory for the release subscription and the plain reads ({@link RedisLock#isLocked()})
	 * @param keyNaming how keys are named
	 * @param spec lease, watchdog and wait defaults
	 * @param listeners told about acquisitions, releases, renewals and lost leases, in order
	 * @param clock the clock {@link HeldLock#heldSince()} is read from
	 */
	public LockRegistry(ScriptExecutor scripts, RedisConnectionFactory connectionFactory, KeyNaming keyNaming,
			LockSpec spec, List<? extends LockListener> listeners, Clock clock) {
		this.shell = new LockShell<>(LockRegistry.class, "lock", keyNaming,
				required(spec).watchdogTimeout(), spec.defaultLeaseTime(), spec.defaultWaitTime(),
				listeners, clock, "Locks cannot reach Redis; lock calls fail after the command timeout",
				(guarded, outages) -> engine(scripts, connectionFactory, keyNaming, spec, guarded),
				LockScripts.Keys::of);
		this.spec = spec;
	}

	private static LockSpec required(LockSpec spec) {
		return Objects.requireNonNull(spec, "spec must not be null");
	}

	private static SingleNodeEngine engine(ScriptExecutor scripts, RedisConnectionFactory connectionFactory,
			KeyNaming keyNaming, LockSpec spec, Listeners<LockListener> listeners) {
		Objects.requireNonNull(scripts, "scripts must not be null");
		Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
		Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		return new SingleNodeEngine(spec, new LockScripts(scripts, connectionFactory, spec.replicaWait(), listeners),
				new ReleaseSignals(connectionFactory, "the lock's release channels"));
	}

	/**
	 * A lock for a scheduled job that must run once per trigger across instances, with lock-at-least and
	 * lock-at-most bounds; it shares the key of {@link #getLock(String)} for the same name.
	 * @param name the lock name, also the metrics' tag
	 * @return a handle on that lock
	 */
	public JobLock getJobLock(String name) {
		return new JobLock(getLock(name), shell().engine().scripts);
	}

	/**
	 * One scheduled lock of a group; the lock is {@code group:key}, its metrics are tagged with {@code group}.
	 * @param group the group name, a small fixed set
	 * @param key what selects the lock within the group
	 * @return a handle on that lock
	 */
	public JobLock getJobLock(String group, String key) {
		return new JobLock(getLock(group, key), shell().engine().scripts);
	}

	/**
	 * Several locks taken as one, all or none, in an order that never deadlocks (see {@link MultiLock}); each
	 * name is the lock {@link #getLock(String)} hands out for it, tagged in metrics with its own name.
	 * @param names the lock names, at least one, none repeated
	 * @return a handle on the set
	 * @throws IllegalArgumentException naming {@code names} when there are none, or one is repeated or breaks the
	 * rule of names given in code ({@link io.rediskit.support.Names#requireData})
	 */
	public MultiLock getMultiLock(Collection<String> names) {
		MultiLock.requireNames(names, "names", false);
		return new MultiLock(names.stream().map(this::getLock).toList(), shell().engine().scripts);
	}

	/**
	 * {@link #getMultiLock(Collection)} for names given one by one.
	 * @param names the lock names, at least one, none repeated
	 * @return a handle on the set
	 */
	public MultiLock getMultiLock(String... names) {
		return getMultiLock(Arrays.asList(names));
	}

	/**
	 * Several locks of one group taken as one, such as the locks of the two accounts of a transfer: each lock is
	 * {@code group:key}, as {@link #getLock(String, String)} names it, and its metrics are tagged with
	 * {@code group} only.
	 * @param group the group name, a small fixed set
	 * @param keys what selects each lock within the group, at least one, none repeated
	 * @return a handle on the set
	 */
	public MultiLock getMultiLock(String group, Collection<String> keys) {
		MultiLock.requireNames(keys, "keys", true);
		return new MultiLock(keys.stream().map((key) -> getLock(group, key)).toList(), shell().engine().scripts);
	}

	/** @return the spec this registry runs with */
	public LockSpec spec() {
		return this.spec;
	}

	/** @return the release signals, for tests of the waiting state */
	ReleaseSignals signals() {
		return shell().engine().signals;
	}

	@Override
	LockShell<SingleNodeEngine> shell() {
		return this.shell;
	}

}
