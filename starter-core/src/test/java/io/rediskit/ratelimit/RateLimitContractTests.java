package io.rediskit.ratelimit;

import io.rediskit.support.Topology;
import org.junit.jupiter.api.Nested;

/** {@link RateLimitContract} on every topology. */
class RateLimitContractTests {

	@Nested
	class Standalone extends RateLimitContract {

		Standalone() {
			super(Topology.STANDALONE);
		}

	}

	@Nested
	class Cluster extends RateLimitContract {

		Cluster() {
			super(Topology.CLUSTER);
		}

	}

	@Nested
	class Sentinel extends RateLimitContract {

		Sentinel() {
			super(Topology.SENTINEL);
		}

	}

}
