package io.rediskit.keys;

import io.rediskit.support.Topology;
import org.junit.jupiter.api.Nested;

/** {@link KeyContract} on every topology. */
class KeyContractTests {

	@Nested
	class Standalone extends KeyContract {

		Standalone() {
			super(Topology.STANDALONE);
		}

	}

	@Nested
	class Cluster extends KeyContract {

		Cluster() {
			super(Topology.CLUSTER);
		}

	}

	@Nested
	class Sentinel extends KeyContract {

		Sentinel() {
			super(Topology.SENTINEL);
		}

	}

}
