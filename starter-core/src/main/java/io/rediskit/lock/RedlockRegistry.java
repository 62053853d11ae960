package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.ThrottledLog;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Hands out {@link RedisLock}s over several independent Redis servers (masters that do not replicate each
 * other): the Redlock algorithm as published by Redis. Use it where a lock must survive the loss of a minority of
 * servers; the single-node {@link LockRegistry} is simpler and faster otherwise. Use an odd number of nodes, 3 or
 * 5: a majority is {@code N/2+1}, so 5 nodes tolerate 2 lost.
 * <pre>{@code
 * RedlockRegistry redlock = new RedlockRegistry(List.of(node1, node2, node3, node4, node5));
 * try (Lease lease = redlock.getLock("nightly-report").acquire(Duration.ofSeconds(2))) {
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
public final class RedlockRegistry extends AbstractLockRegistry {

	private final LockShell<QuorumEngine> shell;

	private final RedlockSpec spec;

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
		this.shell = new LockShell<>(RedlockRegistry.class, "Redlock", keyNaming,
				required(spec).watchdogTimeout(), spec.defaultLeaseTime(),
				spec.defaultWaitTime(), listeners, clock,
				"Redlock nodes cannot be reached; a call fails when no majority answers within the node timeout",
				(guarded, outages) -> engine(nodes, spec, outages),
				LockScripts.Keys::of);
		this.spec = spec;
	}

	private static RedlockSpec required(RedlockSpec spec) {
		return Objects.requireNonNull(spec, "spec must not be null");
	}

	private static QuorumEngine engine(List<? extends RedisConnectionFactory> nodes, RedlockSpec spec,
			ThrottledLog outages) {
		Objects.requireNonNull(nodes, "nodes must not be null");
		if (nodes.isEmpty()) {
			throw new IllegalArgumentException("A Redlock needs at least one node");
		}
		List<RedlockNodes.Node> servers = new ArrayList<>();
		for (int i = 0; i < nodes.size(); i++) {
			RedisConnectionFactory factory = Objects.requireNonNull(nodes.get(i), "nodes must not contain null");
			servers.add(new RedlockNodes.Node(describe(i, factory),
					new LockScripts(ScriptExecutor.of(factory), factory)));
		}
		return new QuorumEngine(spec, new RedlockNodes(servers, spec.nodeTimeout(), outages));
	}

	/** @return the spec this registry runs with */
	public RedlockSpec spec() {
		return this.spec;
	}

	/** @return how many nodes the registry locks on */
	public int nodeCount() {
		return nodes().size();
	}

	/** @return how many nodes make a majority: {@code N/2+1} */
	public int quorum() {
		return nodes().quorum();
	}

	/** @return the nodes, whose bounds the tests read */
	RedlockNodes nodes() {
		return shell().engine().nodes;
	}

	/** @return how many waiters of this registry are in the line of a name, the one sending rounds included */
	int waiting(String name) {
		return shell().engine().line.waiting(name);
	}

	private static String describe(int index, RedisConnectionFactory factory) {
		if (factory instanceof LettuceConnectionFactory lettuce) {
			return "node " + (index + 1) + " (" + lettuce.getHostName() + ":" + lettuce.getPort() + ")";
		}
		return "node " + (index + 1);
	}

	@Override
	LockShell<QuorumEngine> shell() {
		return this.shell;
	}

}
