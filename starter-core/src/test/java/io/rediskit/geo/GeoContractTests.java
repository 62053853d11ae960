package io.rediskit.geo;

import io.rediskit.support.Topology;
import org.junit.jupiter.api.Nested;

/** {@link GeoContract} on every topology. */
class GeoContractTests {

	@Nested
	class Standalone extends GeoContract {

		Standalone() {
			super(Topology.STANDALONE);
		}

	}

	@Nested
	class Cluster extends GeoContract {

		Cluster() {
			super(Topology.CLUSTER);
		}

	}

	@Nested
	class Sentinel extends GeoContract {

		Sentinel() {
			super(Topology.SENTINEL);
		}

	}

}
