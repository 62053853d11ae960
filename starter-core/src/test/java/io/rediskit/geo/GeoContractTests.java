package io.rediskit.geo;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.HostileNames;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.Topology;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * What a geo index promises on every topology (run once per {@link Topology}): writes, moves and
 * searches with no CROSSSLOT, sharded answers equal to unsharded ones, and regions spread over a cluster's
 * masters.
 */
class GeoContractTests extends TopologyContract {

	GeoIndexRegistry registry;

	@BeforeEach
	void setUpRegistry() {
		this.registry = new GeoIndexRegistry(TopologyScripts.of(this.redis), CommandExecutor.of(this.redis.connections()),
				KeyNaming.defaults());
	}

	@Test
	void cellShardedIndexAnswersAsAnUnshardedOne() {
		GeoIndex flat = this.registry.create(this.redis.unique("flat"), GeoIndexSpec.unsharded());
		GeoIndex cells = this.registry.create(this.redis.unique("cells"), GeoIndexSpec.byCell(22));
		SplittableRandom random = new SplittableRandom(11);
		Map<String, GeoPoint> positions = new HashMap<>();
		for (int i = 0; i < 2000; i++) {
			positions.put("bike-" + i, new GeoPoint(2.2 + random.nextDouble(0.3), 48.8 + random.nextDouble(0.2)));
		}
		flat.putAll(positions);
		cells.putAll(positions);
		// Moves: every member that crosses a cell leaves its old one.
		for (int i = 0; i < 200; i++) {
			GeoPoint moved = new GeoPoint(2.2 + random.nextDouble(0.3), 48.8 + random.nextDouble(0.2));
			flat.put("bike-" + i, moved);
			cells.put("bike-" + i, moved);
		}
		for (int i = 0; i < 50; i++) {
			GeoQuery query = GeoQuery.around(new GeoPoint(2.2 + random.nextDouble(0.3), 48.8 + random.nextDouble(0.2)))
				.withinRadius(random.nextDouble(100, 5000), GeoUnit.METERS)
				.limit(1 + random.nextInt(200));
			List<GeoMatch> expected = flat.nearby(query);
			assertThat(cells.nearby(query)).isEqualTo(expected);
			// Without positions: the same members and distances, on every topology.
			assertThat(cells.nearby(query.withoutPositions())).isEqualTo(expected.stream()
				.map((match) -> new GeoMatch(match.member(), match.distance(), null))
				.toList());
		}
		assertThat(cells.nearby(GeoQuery.around(positions.get("bike-1999")).withinRadius(50, GeoUnit.KILOMETERS).limit(1000)))
			.hasSize(1000);
		// Moved members are counted once, in the cell they moved to.
		assertThat(flat.size()).isEqualTo(2000);
		assertThat(cells.size()).isEqualTo(2000);
		assertThat(cells.remove("bike-0")).isTrue();
		assertThat(cells.sizeAsync().toCompletableFuture().join()).isEqualTo(1999);
	}

	@Test
	void regionsSpreadOverTheMastersAndAreSearchedTogether() {
		GeoIndex index = this.registry.create(this.redis.unique("regions"), GeoIndexSpec.byRegion());
		List<String> regions = HostileNames.generate("r", 60, 7);
		GeoPoint center = GeoPoint.ofLatLon(40.0, -3.7);
		for (int i = 0; i < regions.size(); i++) {
			index.region(regions.get(i)).put("m" + i, GeoPoint.ofLatLon(40.0 + i * 0.0001, -3.7));
		}
		List<GeoMatch> all = index.nearby(GeoQuery.around(center).withinRadius(10, GeoUnit.KILOMETERS).limit(1000),
				regions);
		assertThat(all).hasSize(regions.size());
		assertThat(all.get(0).member()).isEqualTo("m0");
		assertThat(all).isSortedAccordingTo(java.util.Comparator.comparingDouble(GeoMatch::distance));
		if (this.topology == Topology.CLUSTER) {
			assertThat(this.redis.keysPerMaster("rk:geo:{" + index.name() + ":*").values())
				.allSatisfy((count) -> assertThat(count).isPositive());
		}
		assertThat(index.region(regions.get(3)).size()).isEqualTo(1);
		assertThatIllegalStateException().isThrownBy(index::size).withMessageContaining("region(name)");
		for (int i = 0; i < regions.size(); i++) {
			assertThat(index.region(regions.get(i)).remove("m" + i)).isTrue();
		}
		assertThat(index.region(regions.get(3)).size()).isZero();
	}

	@Test
	void hostileMembersAreStoredAsGivenAndNeverCrossSlots() {
		GeoIndex index = this.registry.create(this.redis.unique("hostile"), GeoIndexSpec.byCell(20));
		List<String> members = HostileNames.generate("m", 200, 3);
		Map<String, GeoPoint> positions = new HashMap<>();
		for (String member : members) {
			positions.put(member, GeoPoint.ofLatLon(10, 10));
		}
		index.putAll(positions);
		assertThat(index.nearby(GeoQuery.around(GeoPoint.ofLatLon(10, 10)).withinRadius(10, GeoUnit.METERS).limit(1000)))
			.extracting(GeoMatch::member)
			.containsExactlyInAnyOrderElementsOf(positions.keySet());
	}

}
