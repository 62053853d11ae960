package io.rediskit.lock;

import java.time.Clock;
import java.util.List;
import java.util.Objects;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.RecentlyUsed;
import io.rediskit.support.ReleaseSignals;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.Stages;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Hands out {@link RedisSemaphore}s on one Redis deployment (standalone, Sentinel or Cluster): the semaphore
 * member of the lock family. It runs on the lock's shell, its own instance of it: holds and owner ids
 * ({@code LockHolds}), the watchdog that renews every open lease every third of the watchdog timeout, the
 * background lifecycle and the per-call release; only the engine ({@code SemaphoreEngine}: scripts, release
 * channel) is the semaphore's. Create one per application and share it (the Spring Boot starter registers one);
 * handles are cheap and not cached.
 * <p>
 * <b>Lifecycle.</b> As {@link LockRegistry}: {@link #start()} starts the watchdog, the release subscription and
 * the scheduler; used outside a container, the registry starts on the first acquisition. {@link #stop()} releases
 * nothing: open leases run out unless the registry starts again.
 * <p>
 * <b>Keys.</b> {@code <prefix>semaphore:{<name>}} (holders: a sorted set of owners scored by their lease's end on
 * the server's clock, expiring with the last lease), {@code ...:state} (last fencing token, run-time total, each
 * holder's permits; kept a day after the last lease), channel {@code ...:released}; one hash slot.
 * The pub/sub connection stays open between waits, until the registry stops.
 * <p>
 * The spec's {@link LockSpec#replicaWait()} is not supported: semaphore writes never wait for replicas.
 */
public final class SemaphoreRegistry extends LockFamilyRegistry {

	private final LockShell<SemaphoreEngine> shell;

	private final RecentlyUsed<RedisSemaphore> recent = new RecentlyUsed<>();

	/**
	 * Creates a registry with default key naming and spec, no listeners, and scripts run on the factory's
	 * connections.
	 * @param connectionFactory the application's Redis connections
	 */
	public SemaphoreRegistry(RedisConnectionFactory connectionFactory) {
		this(ScriptExecutor.of(connectionFactory), connectionFactory, KeyNaming.defaults(), LockSpec.defaults(),
				List.of(), Clock.systemUTC());
	}

	/**
	 * Creates a registry. It starts nothing until {@link #start()} or its first acquisition.
	 * @param scripts runs the semaphore's scripts
	 * @param connectionFactory for the release subscription
	 * @param keyNaming how keys are named
	 * @param spec watchdog timeout, default lease, default wait and longest poll
	 * @param listeners told about acquisitions, releases, renewals and lost leases, in order
	 * @param clock the clock {@link HeldLock#heldSince()} is read from
	 * @throws IllegalArgumentException if the spec asks for replica waits
	 */
	public SemaphoreRegistry(ScriptExecutor scripts, RedisConnectionFactory connectionFactory, KeyNaming keyNaming,
			LockSpec spec, List<? extends SemaphoreListener> listeners, Clock clock) {
		this.shell = new LockShell<>(SemaphoreRegistry.class, "semaphore", keyNaming,
				withoutReplicaWait(spec).watchdogTimeout(), spec.defaultLeaseTime(),
				spec.defaultWaitTime(), listeners, clock,
				"Semaphores cannot reach Redis; semaphore calls fail after the command timeout",
				(guarded, outages) -> new SemaphoreEngine(spec,
						new SemaphoreScripts(Objects.requireNonNull(scripts, "scripts must not be null")),
						new ReleaseSignals(Objects.requireNonNull(connectionFactory, "connectionFactory must not be null"),
								"the semaphores' release channels")),
				SemaphoreScripts::keys);
	}

	private static LockSpec withoutReplicaWait(LockSpec spec) {
		Objects.requireNonNull(spec, "spec must not be null");
		if (spec.replicaWait().enabled()) {
			throw new IllegalArgumentException("Semaphores do not wait for replicas: give a spec without replicaWait");
		}
		return spec;
	}

	/**
	 * A semaphore whose metrics are tagged with its own name: use it for a fixed set of names.
	 * @param name the semaphore name
	 * @param total how many permits may be held at once, at least 1, unless {@link RedisSemaphore#setTotal} set
	 * another total in Redis
	 * @return a handle on that semaphore
	 * @throws IllegalArgumentException if the name breaks the rule of names given in code: 1 to 128 characters
	 * without control characters ({@link io.rediskit.support.Names#requireData})
	 */
	public RedisSemaphore getSemaphore(String name, int total) {
		LockShell.requireName(name, "Semaphore");
		return newSemaphore(name, name, total);
	}

	/**
	 * One semaphore of a group, such as the one of a tenant: the semaphore is {@code group:key}, its metrics are
	 * tagged with {@code group} only.
	 * @param group the group name, a small fixed set
	 * @param key what selects the semaphore within the group: data of any length
	 * @param total how many permits may be held at once, at least 1
	 * @return a handle on that semaphore
	 * @throws IllegalArgumentException if the group breaks the rule of names given in code: 1 to 128 characters
	 * without control characters ({@link io.rediskit.support.Names#requireData})
	 */
	public RedisSemaphore getSemaphore(String group, String key, int total) {
		LockShell.requireName(group, "Semaphore");
		Objects.requireNonNull(key, "key");
		return newSemaphore(group + ":" + key, group, total);
	}

	private RedisSemaphore newSemaphore(String name, String group, int total) {
		if (total < 1) {
			throw new IllegalArgumentException("total of a semaphore must be at least 1, was " + total);
		}
		RedisLock identity = new RedisLock(name, group, SemaphoreScripts.keys(shell().getKeyNaming(), name, group), shell().parts());
		return this.recent.remember(name, new RedisSemaphore(identity, shell().engine(), total));
	}

	/**
	 * The semaphores this registry handed out, for what lists them (the actuator endpoint, the console): the last
	 * handle of each name, at most {@value RecentlyUsed#MAX} names, the least recently handed out forgotten first.
	 * Their permits are in Redis: ask each its {@link RedisSemaphore#permits()}.
	 * @return the handles, by name
	 */
	public List<RedisSemaphore> semaphores() {
		return this.recent.sorted();
	}

	/**
	 * Reads one semaphore's permits in Redis without handing out a handle, so that it is not listed among
	 * {@link #semaphores()}: for what lists the semaphores other instances use (the console, from their heartbeats).
	 * One read-only script.
	 * @param name the semaphore's name ({@code group:key} for one of a group)
	 * @param total the total its users' handles give, in force unless a total was set in Redis
	 * @return its permits now
	 */
	public SemaphorePermits permits(String name, int total) {
		// A name read back, not given: the key of a group's semaphore is data of any length, so only emptiness is refused.
		Objects.requireNonNull(name, "name");
		if (name.isEmpty()) {
			throw new IllegalArgumentException("Semaphore name must not be empty");
		}
		return Stages.join(shell().engine().scripts.permits(SemaphoreScripts.keys(shell().getKeyNaming(), name, name),
				Math.max(1, total)).thenApply((permits) -> new SemaphorePermits(permits.total(), permits.held())));
	}

	/** @return the open leases of this registry's acquisitions, oldest first; lost ones are left out */
	public List<HeldLock> heldPermits() {
		return shell().parts().holds().describe();
	}

	@Override
	LockShell<SemaphoreEngine> shell() {
		return this.shell;
	}

}
