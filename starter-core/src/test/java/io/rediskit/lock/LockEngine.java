package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.IndependentMasters;
import io.rediskit.testsupport.RedisServerProcess;
import io.rediskit.testsupport.RedisTopology;
import io.rediskit.testsupport.SharedTopologies;
import io.rediskit.testsupport.Topology;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsProvider;
import org.junit.jupiter.params.support.ParameterDeclarations;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One run of {@link LockContractTests}: a lock engine on a deployment. The single-node engine ({@link LockRegistry})
 * runs on every {@link Topology}, Redlock ({@link RedlockRegistry}) on {@value #REDLOCK_NODES} independent masters;
 * {@link All} lists them, so a topology added to {@link Topology}, or an engine added here, reaches the whole
 * contract. The deployments are the run's shared ones ({@link SharedTopologies}), started when a test first asks.
 */
abstract class LockEngine {

	static final int REDLOCK_NODES = 3;

	/** The watchdog lease of the contract's registries: how long a key whose release never arrived may stay. */
	static final Duration LEASE = Duration.ofSeconds(30);

	/** Generous on a loaded machine, still far below the command timeout; a Redlock lease is at least 3 of them. */
	static final Duration REDLOCK_NODE_TIMEOUT = Duration.ofSeconds(1);

	static String key(String name) {
		return KeyNaming.defaults().key("lock", name);
	}

	/**
	 * Opens a client of the lock: a registry as one application instance has it.
	 * @param listener told about every acquisition, release, renewal and lost lease
	 * @param watchdogTimeout the lease of locks taken without an explicit one, renewed by the watchdog
	 * @return the client; close it when done
	 */
	abstract Locks open(LockListener listener, Duration watchdogTimeout);

	/** @return the shortest lease the engine takes, for tests that wait for one to end or be renewed */
	abstract Duration shortLease();

	/** @return a name no other test uses */
	abstract String unique(String base);

	/**
	 * Whether the lock's key is there, asked of the servers without the client under test: on the server that
	 * owns it, or on a majority of Redlock nodes (a Redlock release completes once a majority confirmed it).
	 * @param key the key
	 * @return whether it exists
	 */
	abstract boolean exists(String key);

	/**
	 * Checks that no server has the key any more, or soon will not. A Redlock release completes once a majority
	 * confirmed it; on the other nodes the key goes when the release arrives, or, should a slow node miss it
	 * (documented: the node timeout, then the lease ends the key), when its {@link #LEASE} ends. So the key is
	 * awaited up to the lease and 10 s more: only an orphan that is renewed, or one with a longer lease, stays.
	 * @param key the key
	 */
	abstract void assertGone(String key);

	/** @return where the tests' fenced resource and counters live */
	abstract RedisConnectionFactory resource();

	/** @return the server holding a key of {@link #resource()}, to read it without the client under test */
	abstract RedisServerProcess resourceServer(String key);

	/**
	 * Checks where keys matching a pattern went: spread over a cluster's masters, or on every Redlock node.
	 * @param pattern a {@code SCAN MATCH} pattern
	 * @param names how many distinct keys match it
	 */
	abstract void assertSpread(String pattern, int names);

	/** What the contract needs of a registry, whichever engine it belongs to. */
	interface Locks extends AutoCloseable {

		RedisLock getLock(String name);

		RedisLock getLock(String group, String key);

		List<HeldLock> heldLocks();

		@Override
		void close();

	}

	/** Every engine on every deployment it runs on. */
	static final class All implements ArgumentsProvider {

		@Override
		public Stream<? extends Arguments> provideArguments(ParameterDeclarations parameters,
				ExtensionContext context) {
			List<LockEngine> engines = new ArrayList<>();
			for (Topology topology : Topology.values()) {
				engines.add(new SingleNode(context, topology));
			}
			engines.add(new Redlock(context));
			return engines.stream().map(Arguments::of);
		}

	}

	/** {@link LockRegistry} on one topology. */
	static final class SingleNode extends LockEngine {

		private final ExtensionContext context;

		private final Topology topology;

		SingleNode(ExtensionContext context, Topology topology) {
			this.context = context;
			this.topology = topology;
		}

		private RedisTopology redis() {
			return SharedTopologies.get(this.context, this.topology);
		}

		@Override
		Locks open(LockListener listener, Duration watchdogTimeout) {
			RedisTopology redis = redis();
			LockRegistry registry = LockTesting.observed(new LockRegistry(TopologyScripts.of(redis),
					redis.connections(), KeyNaming.defaults(), LockSpec.defaults().withWatchdogTimeout(watchdogTimeout),
					List.of(listener), Clock.systemUTC()), listener);
			return new Locks() {

				@Override
				public RedisLock getLock(String name) {
					return registry.getLock(name);
				}

				@Override
				public RedisLock getLock(String group, String key) {
					return registry.getLock(group, key);
				}

				@Override
				public List<HeldLock> heldLocks() {
					return registry.heldLocks();
				}

				@Override
				public void close() {
					registry.close();
				}

			};
		}

		@Override
		Duration shortLease() {
			return Duration.ofMillis(900);
		}

		@Override
		String unique(String base) {
			return redis().unique(base);
		}

		@Override
		boolean exists(String key) {
			return redis().exists(key);
		}

		@Override
		void assertGone(String key) {
			assertThat(redis().exists(key)).as("%s left on the server", key).isFalse();
		}

		@Override
		RedisConnectionFactory resource() {
			return redis().connections();
		}

		@Override
		RedisServerProcess resourceServer(String key) {
			return redis().masterFor(key);
		}

		@Override
		void assertSpread(String pattern, int names) {
			Map<RedisServerProcess, Long> spread = redis().keysPerMaster(pattern);
			int masters = (this.topology == Topology.CLUSTER) ? 3 : 1;
			assertThat(spread).hasSize(masters);
			assertThat(spread.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(names);
			assertThat(spread.values()).as("keys per master").allMatch((count) -> count > names / masters / 2);
		}

		@Override
		public String toString() {
			return "single-node on " + this.topology;
		}

	}

	/** {@link RedlockRegistry} on {@value #REDLOCK_NODES} independent masters. */
	static final class Redlock extends LockEngine {

		private final ExtensionContext context;

		Redlock(ExtensionContext context) {
			this.context = context;
		}

		private IndependentMasters masters() {
			return SharedTopologies.get(this.context, "redlock-" + REDLOCK_NODES, IndependentMasters.class,
					() -> IndependentMasters.start(REDLOCK_NODES));
		}

		@Override
		Locks open(LockListener listener, Duration watchdogTimeout) {
			RedlockSpec spec = RedlockSpec.defaults()
				.withNodeTimeout(REDLOCK_NODE_TIMEOUT)
				.withWatchdogTimeout(watchdogTimeout)
				.withRetry(Duration.ofMillis(5), Duration.ofMillis(20));
			RedlockRegistry registry = LockTesting.observed(new RedlockRegistry(masters().connections(),
					KeyNaming.defaults(), spec, List.of(listener), Clock.systemUTC()), listener);
			return new Locks() {

				@Override
				public RedisLock getLock(String name) {
					return registry.getLock(name);
				}

				@Override
				public RedisLock getLock(String group, String key) {
					return registry.getLock(group, key);
				}

				@Override
				public List<HeldLock> heldLocks() {
					return registry.heldLocks();
				}

				@Override
				public void close() {
					registry.close();
				}

			};
		}

		@Override
		Duration shortLease() {
			return REDLOCK_NODE_TIMEOUT.multipliedBy(3);
		}

		@Override
		String unique(String base) {
			return masters().unique(base);
		}

		@Override
		boolean exists(String key) {
			return masters().holding(key) > REDLOCK_NODES / 2;
		}

		@Override
		void assertGone(String key) {
			try {
				LockTesting.awaitCondition(key + " gone from every node", LEASE.plusSeconds(10),
						() -> masters().holding(key) == 0);
			}
			catch (AssertionError ex) {
				StringBuilder nodes = new StringBuilder();
				for (RedisServerProcess node : masters().servers()) {
					nodes.append(" | ").append(node).append(": ").append(node.command("HGETALL", key)).append(" pttl ")
						.append(node.command("PTTL", key));
				}
				throw new AssertionError(ex.getMessage() + nodes, ex);
			}
		}

		@Override
		RedisConnectionFactory resource() {
			return masters().connections().get(0);
		}

		@Override
		RedisServerProcess resourceServer(String key) {
			return masters().servers().get(0);
		}

		@Override
		void assertSpread(String pattern, int names) {
			long total = 0;
			for (RedisServerProcess node : masters().servers()) {
				long count = 0;
				String cursor = "0";
				do {
					List<?> reply = (List<?>) node.command("SCAN", cursor, "MATCH", pattern, "COUNT", "1000");
					cursor = (String) reply.get(0);
					count += ((List<?>) reply.get(1)).size();
				}
				while (!"0".equals(cursor));
				assertThat(count).as("keys on " + node).isLessThanOrEqualTo(names);
				total += count;
			}
			// Each name on a majority at least: a node that missed one round (its node timeout) is allowed.
			assertThat(total).as("keys on all nodes").isGreaterThanOrEqualTo((long) names * (REDLOCK_NODES / 2 + 1));
		}

		@Override
		public String toString() {
			return "redlock on " + REDLOCK_NODES + " masters";
		}

	}

}
