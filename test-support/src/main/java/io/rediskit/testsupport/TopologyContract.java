package io.rediskit.testsupport;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The base of a contract suite: a primitive's behaviour written once and run, as a JUnit
 * {@link ParameterizedClass}, once per {@link Topology}. A suite is a class of tests that extends it and uses
 * {@link #redis}; it declares no topology of its own, so a topology added to {@link Topology} reaches every suite:
 *
 * <pre>{@code
 * class QueueContractTests extends TopologyContract {
 *     @Test void deliversWhatWasSent() { ... this.redis.connections() ... this.redis.unique("orders") ... }
 * }
 * }</pre>
 *
 * Reports name each run by its topology ({@code [2] cluster}), and so does each failure's message
 * ({@link FailuresNameTheRun}), since surefire's report shows class and method only. Each topology starts once
 * per test JVM, on first use, and is shared by every suite ({@link SharedTopologies}). Suites therefore name keys with {@link RedisTopology#unique(String)}, never flush and never inject faults: a fault
 * test starts a private deployment with {@link RedisTopology#start(Topology)}.
 * <p>
 * This class needs {@code junit-jupiter-params} and Spring Data Redis with Lettuce on the test class path; the
 * module declares them optional.
 */
@ParameterizedClass(name = "[{index}] {0}")
@EnumSource(Topology.class)
@ExtendWith({ SharedTopologies.class, FailuresNameTheRun.class })
public abstract class TopologyContract implements SharedTopologies.OnTopology {

	/** The deployment this run of the suite uses, injected by JUnit. */
	@Parameter
	protected Topology topology;

	/** The shared running deployment of {@link #topology}, set before each test. */
	protected RedisTopology redis;

	@Override
	public Topology topology() {
		return this.topology;
	}

	@Override
	public void connect(RedisTopology redis) {
		this.redis = redis;
	}

}
