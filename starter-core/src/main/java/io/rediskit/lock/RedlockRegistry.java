package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.scheduling.TaskScheduler;

/**
 * Hands out {@link RedlockLock}s over several independent Redis servers (masters that do not replicate each
 * other): the Redlock algorithm as published by Redis. Use it where a lock must survive the loss of a minority of
 * servers; the single-node {@link LockRegistry} is simpler and faster otherwise. Use an odd number of nodes, 3 or
 * 5: a majority is {@code N/2+1}, so 5 nodes tolerate 2 lost.
 * <pre>{@code
 * RedlockRegistry redlock = new RedlockRegistry(List.of(node1, node2, node3, node4, node5));
 * try (RedisLock.Lease lease = redlock.getLock("nightly-report").acquire(Duration.ofSeconds(2))) {
 *     store.write(report, lease.fencingToken());
 * }
 * }</pre>
 * Each node runs the single-node lock's scripts on its own connection factory, with the same keys
 * ({@code <prefix>lock:{<name>}}, {@code ...:fence}); the registry keeps no cache of locks.
 * <p>
 * <b>Lifecycle.</b> The constructor starts nothing and opens no connection. {@link #start()} (called by the
 * Spring container, as a {@link SmartLifecycle}) starts the watchdog on the scheduler; used outside a container,
 * the registry starts on the first acquisition. {@link #stop()} stops the watchdog (held locks are not released:
 * their leases run out), {@link #close()} for good. The connection factories are the application's: the registry
 * neither starts nor stops them.
 * <p>
 * <b>Failures.</b> A node that is down, paused or slow costs one node timeout per call; while nodes are
 * unavailable the registry logs one warning per {@value LockRegistry#OUTAGE_LOG_INTERVAL_SECONDS} seconds.
 */
public class RedlockRegistry implements SmartLifecycle, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedlockRegistry.class);

	private final KeyNaming keyNaming;

	private final RedlockSpec spec;

	private final RedlockHolds holds;

	private final RedlockWatchdog watchdog;

	private final RedlockBackground background;

	private final RedlockParts parts;

	/**
	 * Creates a registry with default key naming and spec and no listeners.
	 * @param nodes one connection factory per independent Redis server
	 */
	public RedlockRegistry(List<? extends RedisConnectionFactory> nodes) {
		this(nodes, KeyNaming.defaults(), RedlockSpec.defaults(), List.of(), Clock.systemUTC());
	}

	/**
	 * Creates a registry. It starts nothing until {@link #start()} or its first acquisition.
	 * @param nodes one connection factory per independent Redis server, at least one; scripts run on each
	 * through {@link ScriptExecutor#of(RedisConnectionFactory)}
	 * @param keyNaming how keys are named
	 * @param spec node timeout, lease, drift, retry and wait settings
	 * @param listeners told about acquisitions, releases, renewals and lost leases, in order
	 * @param clock the clock {@link HeldLock#heldSince()} is read from
	 */
	public RedlockRegistry(List<? extends RedisConnectionFactory> nodes, KeyNaming keyNaming, RedlockSpec spec,
			List<? extends LockListener> listeners, Clock clock) {
		Objects.requireNonNull(nodes, "nodes must not be null");
		if (nodes.isEmpty()) {
			throw new IllegalArgumentException("A Redlock needs at least one node");
		}
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		this.spec = Objects.requireNonNull(spec, "spec must not be null");
		Objects.requireNonNull(clock, "clock must not be null");
		List<RedlockNodes.Node> servers = new ArrayList<>();
		for (int i = 0; i < nodes.size(); i++) {
			RedisConnectionFactory factory = Objects.requireNonNull(nodes.get(i), "nodes must not contain null");
			servers.add(new RedlockNodes.Node(describe(i, factory),
					new LockScripts(ScriptExecutor.of(factory), factory)));
		}
		Listeners<LockListener> guarded = Listeners.of("redlock", listeners);
		ThrottledLog outages = new ThrottledLog(logger, Duration.ofSeconds(LockRegistry.OUTAGE_LOG_INTERVAL_SECONDS),
				"Redlock nodes cannot be reached; a call fails when no majority answers within the node timeout");
		RedlockNodes redlockNodes = new RedlockNodes(servers, spec.nodeTimeout(), outages);
		this.holds = new RedlockHolds(guarded, clock);
		this.watchdog = new RedlockWatchdog(redlockNodes, this.holds, spec, guarded);
		this.background = new RedlockBackground(this.watchdog, redlockNodes);
		this.parts = new RedlockParts(spec, redlockNodes, this.holds, this.background, guarded);
	}

	/**
	 * Gives the scheduler the watchdog and the pauses of asynchronous waiters run on, instead of a daemon thread
	 * of the registry's own. Its tasks never block on Redis. Set it before the registry starts.
	 * @param taskScheduler the application's scheduler, or {@code null} for the default
	 * @throws IllegalStateException if the registry has started
	 */
	public void setTaskScheduler(@Nullable TaskScheduler taskScheduler) {
		this.background.setScheduler(taskScheduler);
	}

	/**
	 * Gives the executor that sends calls to nodes which did not answer their last call: such a call may open a
	 * connection, which blocks for up to the connect timeout, so it never runs on the driver's threads. Set it
	 * before the registry starts.
	 * @param executor the application's executor, or {@code null} for the default (a cached pool of daemon
	 * threads, used only while a node is down)
	 * @throws IllegalStateException if the registry has started
	 */
	public void setExecutor(@Nullable Executor executor) {
		this.background.setExecutor(executor);
	}

	/**
	 * A lock whose metrics are tagged with its own name: use it for a fixed set of names.
	 * @param name the lock name
	 * @return a handle on that lock
	 */
	public RedlockLock getLock(String name) {
		requireName(name);
		return newLock(name, name);
	}

	/**
	 * One lock of a group: the lock is {@code group:key}, its metrics are tagged with {@code group} only.
	 * @param group the group name, a small fixed set
	 * @param key what selects the lock within the group
	 * @return a handle on that lock
	 */
	public RedlockLock getLock(String group, String key) {
		requireName(group);
		Objects.requireNonNull(key, "key");
		return newLock(group + ":" + key, group);
	}

	private RedlockLock newLock(String name, String group) {
		return new RedlockLock(name, group, LockScripts.Keys.of(this.keyNaming, name), this.parts);
	}

	/** @return the locks this registry's owners hold now, oldest first; lost holds are left out */
	public List<HeldLock> heldLocks() {
		return this.holds.describe();
	}

	/** @return the spec this registry runs with */
	public RedlockSpec spec() {
		return this.spec;
	}

	/** @return how many nodes the registry locks on */
	public int nodeCount() {
		return this.parts.nodes().size();
	}

	/** @return how many nodes make a majority: {@code N/2+1} */
	public int quorum() {
		return this.parts.nodes().quorum();
	}

	/** @return the key naming this registry uses */
	public KeyNaming getKeyNaming() {
		return this.keyNaming;
	}

	/** Starts the watchdog and the scheduler; does nothing when running. */
	@Override
	public void start() {
		this.background.start();
	}

	/**
	 * Stops the watchdog and the scheduler (unless the application gave it). Held locks are not released: their
	 * leases run out. Asynchronous acquisitions still waiting complete exceptionally with
	 * {@link IllegalStateException}. A later acquisition starts the registry again.
	 */
	@Override
	public void stop() {
		this.background.stop();
	}

	@Override
	public boolean isRunning() {
		return this.background.isRunning();
	}

	@Override
	public int getPhase() {
		return LockRegistry.PHASE;
	}

	/** Stops for good, as {@link #stop()} does; a later acquisition fails with {@link IllegalStateException}. */
	@Override
	public void close() {
		this.background.close();
	}

	/** Runs one watchdog round now, for tests. */
	/** @return the nodes, whose bounds the tests read */
	RedlockNodes nodes() {
		return this.parts.nodes();
	}

	void renewNow() {
		this.watchdog.renewAll();
	}

	private static String describe(int index, RedisConnectionFactory factory) {
		if (factory instanceof LettuceConnectionFactory lettuce) {
			return "node " + (index + 1) + " (" + lettuce.getHostName() + ":" + lettuce.getPort() + ")";
		}
		return "node " + (index + 1);
	}

	private static void requireName(String name) {
		Objects.requireNonNull(name, "name");
		if (name.isEmpty()) {
			throw new IllegalArgumentException("Lock name must not be empty");
		}
	}

}
