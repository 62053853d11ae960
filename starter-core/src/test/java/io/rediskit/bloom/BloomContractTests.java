package io.rediskit.bloom;

import io.rediskit.support.Topology;
import org.junit.jupiter.api.Nested;

/** {@link BloomContract} on every topology. */
class BloomContractTests {

	@Nested
	class Standalone extends BloomContract {

		Standalone() {
			super(Topology.STANDALONE);
		}

	}

	@Nested
	class Cluster extends BloomContract {

		Cluster() {
			super(Topology.CLUSTER);
		}

	}

	@Nested
	class Sentinel extends BloomContract {

		Sentinel() {
			super(Topology.SENTINEL);
		}

	}

}
