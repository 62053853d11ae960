package io.rediskit.geo;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The promise of sharding: on the same random data, a cell-sharded index answers every search exactly as an
 * unsharded one (one GEOSEARCH over one set), at several precisions, near the poles' limit and across the
 * antimeridian, for circles and boxes, in both orders.
 */
class GeoShardingComparisonTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final int MEMBERS = 20_000;

	static GeoIndex unsharded;

	static List<GeoIndex> sharded;

	static final SplittableRandom random = new SplittableRandom(20261122);

	@BeforeAll
	static void load() {
		redis.flushAll();
		GeoIndexRegistry registry = new GeoIndexRegistry(redis.scripts(), CommandExecutor.of(redis.connections()),
				KeyNaming.defaults());
		GeoIndexSpec bounds = GeoIndexSpec.unsharded().withMaxRadiusMeters(3_000_000).withMaxLimit(5000);
		unsharded = registry.create("flat", bounds);
		sharded = List.of(registry.create("cells10", new GeoIndexSpec(GeoSharding.GEOHASH_CELL, 10, null, 3_000_000, 5000, 100)),
				registry.create("cells16", new GeoIndexSpec(GeoSharding.GEOHASH_CELL, 16, null, 3_000_000, 5000, 100)),
				registry.create("cells24", new GeoIndexSpec(GeoSharding.GEOHASH_CELL, 24, null, 3_000_000, 5000, 100)));
		Map<String, GeoPoint> members = new HashMap<>();
		for (int i = 0; i < MEMBERS; i++) {
			members.put("m" + i, randomPoint());
		}
		unsharded.putAll(members);
		for (GeoIndex index : sharded) {
			index.putAll(members);
		}
	}

	/** A third spread over the world, a third in a 50 km square, a third near the antimeridian or the pole limit. */
	static GeoPoint randomPoint() {
		return switch (random.nextInt(3)) {
			case 0 -> new GeoPoint(random.nextDouble(-180, 180), random.nextDouble(-85, 85));
			case 1 -> new GeoPoint(2.2 + random.nextDouble(0.7), 48.6 + random.nextDouble(0.45));
			default -> random.nextBoolean() ? new GeoPoint(random.nextBoolean() ? random.nextDouble(179, 180) : random.nextDouble(-180, -179), random.nextDouble(-10, 10))
					: new GeoPoint(random.nextDouble(-180, 180), random.nextDouble(84, 85.05));
		};
	}

	@Test
	void shardedAnswersEqualUnshardedAnswersOnRandomSearches() {
		int compared = 0;
		int nonEmpty = 0;
		for (int i = 0; i < 300; i++) {
			GeoQuery query = randomQuery();
			List<GeoMatch> expected = unsharded.nearby(query);
			for (GeoIndex index : sharded) {
				if (coverable(index, query)) {
					assertThat(index.nearby(query)).as("%s on %s", query, index.name()).isEqualTo(expected);
					compared++;
				}
			}
			nonEmpty += expected.isEmpty() ? 0 : 1;
		}
		assertThat(compared).isGreaterThan(600);
		assertThat(nonEmpty).isGreaterThan(150);
	}

	private static boolean coverable(GeoIndex index, GeoQuery query) {
		try {
			new GeoCells(index.spec().precision()).cover(query.center(), query.reachMeters());
			return true;
		}
		catch (IllegalArgumentException tooManyCells) {
			return false;
		}
	}

	private static GeoQuery randomQuery() {
		GeoPoint center = randomPoint();
		double reach = switch (random.nextInt(3)) {
			case 0 -> random.nextDouble(10, 2_000);
			case 1 -> random.nextDouble(2_000, 50_000);
			default -> random.nextDouble(50_000, 1_000_000);
		};
		GeoQuery query = random.nextBoolean() ? GeoQuery.around(center).withinRadius(reach, GeoUnit.METERS)
				: GeoQuery.around(center).withinBox(reach * random.nextDouble(0.2, 1.8), reach * random.nextDouble(0.2, 1.8), GeoUnit.METERS);
		query = query.limit(random.nextBoolean() ? 5000 : 1 + random.nextInt(50));
		return random.nextBoolean() ? query : query.order(GeoOrder.FARTHEST_FIRST);
	}

}
