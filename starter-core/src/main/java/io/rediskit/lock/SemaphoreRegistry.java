package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.scheduling.TaskScheduler;

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
 * {@code <prefix>semaphore:keep-alive} keeps the pub/sub connection open between waits.
 * <p>
 * The spec's {@link LockSpec#replicaWait()} is not supported: semaphore writes never wait for replicas.
 */
public class SemaphoreRegistry implements SmartLifecycle, AutoCloseable {

	private final KeyNaming keyNaming;

	private final LockParts parts;

	private final LockWatchdog watchdog;

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
		Objects.requireNonNull(scripts, "scripts must not be null");
		Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
		Objects.requireNonNull(spec, "spec must not be null");
		Objects.requireNonNull(clock, "clock must not be null");
		if (spec.replicaWait().enabled()) {
			throw new IllegalArgumentException("Semaphores do not wait for replicas: give a spec without replicaWait");
		}
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		// The lock's shell, wired as LockEntryPoint wires it, around the semaphore's engine.
		Listeners<LockListener> guarded = Listeners.of("semaphore", listeners);
		ThrottledLog outages = new ThrottledLog(LogFactory.getLog(getClass()),
				Duration.ofSeconds(LockRegistry.OUTAGE_LOG_INTERVAL_SECONDS),
				"Semaphores cannot reach Redis; semaphore calls fail after the command timeout");
		SemaphoreEngine engine = new SemaphoreEngine(spec, new SemaphoreScripts(scripts),
				new ReleaseSignals(connectionFactory, keyNaming.areaKey("semaphore", "keep-alive")));
		LockHolds holds = new LockHolds(guarded, clock);
		this.watchdog = new LockWatchdog(holds, guarded, outages, spec.watchdogTimeout());
		LockBackground background = new LockBackground("semaphore", this.watchdog, engine);
		this.parts = new LockParts(spec.watchdogTimeout(), spec.defaultLeaseTime(), spec.defaultWaitTime(), engine,
				holds, background, guarded, outages);
	}

	/**
	 * A semaphore whose metrics are tagged with its own name: use it for a fixed set of names.
	 * @param name the semaphore name
	 * @param total how many permits may be held at once, at least 1, unless {@link RedisSemaphore#setTotal} set
	 * another total in Redis
	 * @return a handle on that semaphore
	 */
	public RedisSemaphore getSemaphore(String name, int total) {
		requireName(name);
		return newSemaphore(name, name, total);
	}

	/**
	 * One semaphore of a group, such as the one of a tenant: the semaphore is {@code group:key}, its metrics are
	 * tagged with {@code group} only.
	 * @param group the group name, a small fixed set
	 * @param key what selects the semaphore within the group
	 * @param total how many permits may be held at once, at least 1
	 * @return a handle on that semaphore
	 */
	public RedisSemaphore getSemaphore(String group, String key, int total) {
		requireName(group);
		Objects.requireNonNull(key, "key");
		return newSemaphore(group + ":" + key, group, total);
	}

	private RedisSemaphore newSemaphore(String name, String group, int total) {
		if (total < 1) {
			throw new IllegalArgumentException("total of semaphore '" + name + "' must be at least 1, was " + total);
		}
		RedisLock identity = new RedisLock(name, group, SemaphoreScripts.keys(this.keyNaming, name, group), this.parts);
		return new RedisSemaphore(identity, total);
	}

	/** @return the open leases of this registry's acquisitions, oldest first; lost ones are left out */
	public List<HeldLock> heldPermits() {
		return this.parts.holds().describe();
	}

	/** @return how long {@link RedisSemaphore#acquire()} and {@code @DistributedSemaphore} wait by default */
	public Duration defaultWaitTime() {
		return this.parts.defaultWaitTime();
	}

	/**
	 * Gives the scheduler the watchdog and asynchronous waiters run on; set it before the registry starts.
	 * @param taskScheduler the application's scheduler, or {@code null} for a daemon thread of the registry's own
	 */
	public void setTaskScheduler(@Nullable TaskScheduler taskScheduler) {
		this.parts.background().setScheduler(taskScheduler);
	}

	/**
	 * Gives the executor subscribing and unsubscribing run on; set it before the registry starts.
	 * @param executor the application's executor, or {@code null} for a thread per task
	 */
	public void setSubscriptionExecutor(@Nullable Executor executor) {
		this.parts.background().setExecutor(executor);
	}

	/** @return the key naming this registry uses */
	public KeyNaming getKeyNaming() {
		return this.keyNaming;
	}

	@Override
	public void start() {
		this.parts.background().start();
	}

	@Override
	public void stop() {
		this.parts.background().stop();
	}

	@Override
	public boolean isRunning() {
		return this.parts.background().isRunning();
	}

	@Override
	public int getPhase() {
		return LockRegistry.PHASE;
	}

	/** Stops for good; a later acquisition fails with {@link IllegalStateException}. */
	@Override
	public void close() {
		this.parts.background().close();
	}

	/** Runs one watchdog round now, for tests. */
	void renewNow() {
		this.watchdog.renewAll();
	}

	private static void requireName(String name) {
		Objects.requireNonNull(name, "name");
		if (name.isEmpty()) {
			throw new IllegalArgumentException("Semaphore name must not be empty");
		}
	}

}
