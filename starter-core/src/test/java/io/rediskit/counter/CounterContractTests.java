package io.rediskit.counter;

import io.rediskit.support.Topology;
import org.junit.jupiter.api.Nested;

/** {@link CounterContract} on every topology. */
class CounterContractTests {

	@Nested
	class Standalone extends CounterContract {

		Standalone() {
			super(Topology.STANDALONE);
		}

	}

	@Nested
	class Cluster extends CounterContract {

		Cluster() {
			super(Topology.CLUSTER);
		}

	}

	@Nested
	class Sentinel extends CounterContract {

		Sentinel() {
			super(Topology.SENTINEL);
		}

	}

}
