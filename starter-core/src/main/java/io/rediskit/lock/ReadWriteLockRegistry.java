package io.rediskit.lock;

import java.time.Clock;
import java.util.List;
import java.util.Objects;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.ReleaseSignals;
import io.rediskit.support.ScriptExecutor;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Hands out {@link ReadWriteLock}s on one Redis deployment (standalone, Sentinel or Cluster), over the lock's
 * shell: one holds table, watchdog and background for both sides of every lock. As a {@link Locks},
 * {@link #getLock(String)} is the write lock of the name.
 * <p>
 * <b>Keys.</b> {@code <prefix>rwlock:{<name>}} (a hash of the writer and each reader: hold counts, fencing
 * tokens, the writer's lease end), {@code :readers} (readers by the end of their lease), {@code :writers} (waiting
 * writers by the end of their place), {@code :fence}, all in one hash slot and each with a TTL; the channel
 * {@code :released}, told when the writer leaves or the last reader does, wakes every local waiter. Every lease
 * is measured on the server's clock ({@code TIME}); a holder whose lease ended is dropped by the next script.
 * <p>
 * <b>Limits.</b> A lease, as the lock. There is no Redlock variant. Readers wait while a writer waits, so a
 * waiting writer that dies keeps new readers out until its place ends ({@link WaiterLineSpec#waiterTimeout()}).
 */
public final class ReadWriteLockRegistry extends AbstractLockRegistry {

	private final LockShell<ReadWriteEngine> shell;

	private final WaiterLineSpec spec;

	/**
	 * Creates a registry. It starts nothing until {@link #start()} or its first acquisition.
	 * @param scripts runs the scripts
	 * @param connectionFactory for the wake-up subscription
	 * @param keyNaming how keys are named
	 * @param spec lease, watchdog, wait and waiter defaults
	 * @param listeners told about acquisitions, releases, renewals and lost leases, in order
	 * @param clock the clock {@link HeldLock#heldSince()} is read from
	 */
	public ReadWriteLockRegistry(ScriptExecutor scripts, RedisConnectionFactory connectionFactory,
			KeyNaming keyNaming, WaiterLineSpec spec, List<? extends LockListener> listeners, Clock clock) {
		this.shell = new LockShell<>(ReadWriteLockRegistry.class, "rwlock", keyNaming,
				Objects.requireNonNull(spec, "spec must not be null").watchdogTimeout(),
				spec.defaultLeaseTime(), spec.defaultWaitTime(), listeners, clock,
				"Read-write locks cannot reach Redis; read-write lock calls fail after the command timeout",
				(guarded, outages) -> new ReadWriteEngine(spec,
						new ReadWriteLockScripts(Objects.requireNonNull(scripts, "scripts must not be null")),
						new ReleaseSignals(Objects.requireNonNull(connectionFactory,
								"connectionFactory must not be null"),
								"the read-write locks' release channels")),
				(naming, name, group) -> ReadWriteLockScripts.keys(naming, name, group, false));
		this.spec = spec;
	}

	/**
	 * Creates a registry with default key naming and spec, no listeners, and scripts run on the factory's
	 * connections.
	 * @param connectionFactory the application's Redis connections
	 */
	public ReadWriteLockRegistry(RedisConnectionFactory connectionFactory) {
		this(ScriptExecutor.of(connectionFactory), connectionFactory, KeyNaming.defaults(),
				WaiterLineSpec.defaults(), List.of(), Clock.systemUTC());
	}

	/**
	 * A read-write lock whose metrics are tagged with its own name: use it for a fixed set of names.
	 * @param name the lock name
	 * @return both sides of that lock
	 * @throws IllegalArgumentException if the name breaks the rule of names given in code: 1 to 128 characters
	 * without control characters ({@link io.rediskit.support.Names#requireData})
	 */
	public ReadWriteLock getReadWriteLock(String name) {
		RedisLock writeLock = getLock(name);
		return new ReadWriteLock(name, readSide(writeLock), writeLock);
	}

	/**
	 * One read-write lock of a group: the lock is {@code group:key}, its metrics are tagged with {@code group}.
	 * @param group the group name, a small fixed set
	 * @param key what selects the lock within the group: data of any length
	 * @return both sides of that lock
	 * @throws IllegalArgumentException if the group breaks the rule of names given in code: 1 to 128 characters
	 * without control characters ({@link io.rediskit.support.Names#requireData})
	 */
	public ReadWriteLock getReadWriteLock(String group, String key) {
		RedisLock writeLock = getLock(group, key);
		return new ReadWriteLock(writeLock.name(), readSide(writeLock), writeLock);
	}

	private RedisLock readSide(RedisLock writeLock) {
		ReadWriteEngine writing = shell().engine();
		return new RedisLock(writeLock.name(), writeLock.group(),
				ReadWriteLockScripts.keys(shell().getKeyNaming(), writeLock.name(), writeLock.group(), true),
				shell().parts().withEngine(writing.reading()));
	}

	/** @return the spec this registry runs with */
	public WaiterLineSpec spec() {
		return this.spec;
	}

	@Override
	LockShell<ReadWriteEngine> shell() {
		return this.shell;
	}

}
