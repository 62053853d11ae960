package io.rediskit.lock;

import io.rediskit.support.Topology;
import org.junit.jupiter.api.Nested;

/** {@link LockContract} on every topology. */
class LockContractTests {

	@Nested
	class Standalone extends LockContract {

		Standalone() {
			super(Topology.STANDALONE);
		}

	}

	@Nested
	class Cluster extends LockContract {

		Cluster() {
			super(Topology.CLUSTER);
		}

	}

	@Nested
	class Sentinel extends LockContract {

		Sentinel() {
			super(Topology.SENTINEL);
		}

	}

}
