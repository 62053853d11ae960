package io.rediskit.support;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;

/**
 * The base of every contract suite: a primitive's behaviour written once, run on every {@link Topology}.
 * A suite is an abstract subclass whose tests use {@link #redis}; one file then runs it on all three:
 *
 * <pre>{@code
 * abstract class LockContract extends TopologyContract {
 *     LockContract(Topology topology) { super(topology); }
 *     @Test void ...() { ... redis.connections() ... redis.unique("orders") ... }
 * }
 *
 * class LockContractTests {
 *     @Nested class Standalone extends LockContract { Standalone() { super(Topology.STANDALONE); } }
 *     @Nested class Cluster extends LockContract { Cluster() { super(Topology.CLUSTER); } }
 *     @Nested class Sentinel extends LockContract { Sentinel() { super(Topology.SENTINEL); } }
 * }
 * }</pre>
 *
 * Each topology starts once per test JVM, on first use, and is shared by every suite (it lives in JUnit's root
 * store and is closed when the run ends; the servers' shutdown hook covers an aborted run). Suites therefore
 * name keys with {@link RedisTopology#unique(String)}, never flush and never inject faults: a fault test starts
 * a private deployment with {@link RedisTopology#start(Topology)}.
 */
@ExtendWith(TopologyContract.SharedTopologies.class)
public abstract class TopologyContract {

	/** The deployment this run of the suite uses. */
	protected final Topology topology;

	/** The shared running deployment, set before each test. */
	protected RedisTopology redis;

	protected TopologyContract(Topology topology) {
		this.topology = topology;
	}

	/** Starts each topology once per JVM and hands it to every contract suite's test instances. */
	static final class SharedTopologies implements TestInstancePostProcessor {

		private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace
			.create(SharedTopologies.class);

		@Override
		public void postProcessTestInstance(Object testInstance, ExtensionContext context) {
			if (testInstance instanceof TopologyContract contract) {
				contract.redis = context.getRoot()
					.getStore(NAMESPACE)
					.computeIfAbsent(contract.topology, RedisTopology::start, RedisTopology.class);
			}
		}

	}

}
