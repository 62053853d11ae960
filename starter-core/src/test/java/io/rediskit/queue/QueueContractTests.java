package io.rediskit.queue;

import io.rediskit.support.Topology;
import org.junit.jupiter.api.Nested;

/** {@link QueueContract} on every topology. */
class QueueContractTests {

	@Nested
	class Standalone extends QueueContract {

		Standalone() {
			super(Topology.STANDALONE);
		}

	}

	@Nested
	class Cluster extends QueueContract {

		Cluster() {
			super(Topology.CLUSTER);
		}

	}

	@Nested
	class Sentinel extends QueueContract {

		Sentinel() {
			super(Topology.SENTINEL);
		}

	}

}
