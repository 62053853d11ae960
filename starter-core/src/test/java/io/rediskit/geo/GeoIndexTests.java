package io.rediskit.geo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.observation.Observation;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ObservationRecorder;
import io.rediskit.support.RedisKitContext;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.within;

/** The geo index API on a real server: every sharding, moves, expiry on a pinned clock, validation, listeners. */
class GeoIndexTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final GeoPoint PARIS = GeoPoint.ofLatLon(48.8566, 2.3522);

	static final GeoPoint LOUVRE = GeoPoint.ofLatLon(48.8606, 2.3376);

	static final GeoPoint ORLY = GeoPoint.ofLatLon(48.7262, 2.3652);

	static final GeoPoint LONDON = GeoPoint.ofLatLon(51.5074, -0.1278);

	final List<String> expired = new CopyOnWriteArrayList<>();

	final ObservationRecorder recorder = new ObservationRecorder();

	GeoIndexRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = registry();
	}

	/** A registry whose observations and listener {@link #operations()} records. */
	GeoIndexRegistry registry() {
		GeoIndexRegistry registry = new GeoIndexRegistry(redis.scripts(), CommandExecutor.of(redis.connections()),
				KeyNaming.defaults(), List.of(new GeoListener() {

					@Override
					public void onExpiredRemoved(String indexName, long count) {
						GeoIndexTests.this.expired.add(indexName + " expired " + count);
					}

				}), (name) -> null);
		registry.setObservations(this.recorder.observations());
		return registry;
	}

	/** @return each operation observed ({@code "<index> <operation> <succeeded>"}), then the expiries heard of */
	List<String> operations() {
		List<String> all = new ArrayList<>();
		for (Observation.Context call : this.recorder.stopped(RedisKitObservation.GEO_OPERATION)) {
			RedisKitContext observed = (RedisKitContext) call;
			all.add(observed.configuredName() + " " + observed.detail() + " " + observed.outcome().equals("success"));
		}
		all.addAll(this.expired);
		return all;
	}

	@Test
	void unshardedIndexPutsSearchesAndRemoves() {
		checkBasics(this.registry.create("places", GeoIndexSpec.unsharded()));
		assertThat(redis.server().command("TYPE", "rk:geo:{places}")).isEqualTo("zset");
		assertThat(operations()).contains("places put true", "places nearby true", "places remove true");
	}

	@Test
	void cellShardedIndexPutsSearchesAndRemoves() {
		checkBasics(this.registry.create("places", GeoIndexSpec.byCell(20)));
		assertThat(redis.server().command("TYPE", "rk:geo:{places}:members")).isEqualTo("hash");
	}

	@Test
	void regionShardedIndexKeepsEachRegionInItsOwnKey() {
		GeoIndex index = this.registry.create("places", GeoIndexSpec.byRegion().withMaxRadiusMeters(500_000));
		checkBasics(index.region("fr"));
		index.region("uk").put("london", LONDON);
		assertThat(redis.server().command("EXISTS", "rk:geo:{places:uk}")).isEqualTo(1L);
		assertThat(index.nearby(GeoQuery.around(PARIS).withinRadius(400, GeoUnit.KILOMETERS), List.of("fr", "uk"))
			.stream()
			.map(GeoMatch::member)).containsExactly("louvre", "orly", "london");
		assertThatIllegalStateException().isThrownBy(() -> index.put("x", PARIS))
			.withMessageContaining("sharded by region");
		assertThatIllegalStateException().isThrownBy(() -> index.region("fr").region("x"));
		assertThatIllegalStateException()
			.isThrownBy(() -> this.registry.create("flat", GeoIndexSpec.unsharded()).region("fr"));
	}

	private void checkBasics(GeoIndex index) {
		index.put("paris", PARIS);
		index.putAll(Map.of("louvre", LOUVRE, "orly", ORLY));
		assertThat(index.position("paris").latitude()).isCloseTo(48.8566, within(1e-5));
		assertThat(index.position("nobody")).isNull();
		assertThat(index.distance("paris", "louvre", GeoUnit.METERS)).isCloseTo(1157, within(5.0));
		assertThat(index.distance("paris", "nobody", GeoUnit.METERS)).isNull();
		List<GeoMatch> near = index.nearby(GeoQuery.around(PARIS).withinRadius(2, GeoUnit.KILOMETERS));
		assertThat(near).extracting(GeoMatch::member).containsExactly("paris", "louvre");
		assertThat(near.get(1).distance()).isCloseTo(1.157, within(0.005));
		assertThat(index.nearby(GeoQuery.aroundMember("louvre").withinRadius(20, GeoUnit.KILOMETERS).limit(2)))
			.extracting(GeoMatch::member)
			.containsExactly("louvre", "paris");
		assertThat(index.nearby(GeoQuery.around(PARIS).withinRadius(20, GeoUnit.KILOMETERS).order(GeoOrder.FARTHEST_FIRST)))
			.extracting(GeoMatch::member)
			.containsExactly("orly", "louvre", "paris");
		assertThat(index.nearby(GeoQuery.around(PARIS).withinBox(3, 3, GeoUnit.KILOMETERS)))
			.extracting(GeoMatch::member)
			.containsExactly("paris", "louvre");
		assertThat(index.nearby(GeoQuery.aroundMember("nobody").withinRadius(1, GeoUnit.KILOMETERS))).isEmpty();
		// A move: one position, found at the new place only.
		index.put("paris", ORLY);
		assertThat(index.nearby(GeoQuery.around(ORLY).withinRadius(1, GeoUnit.KILOMETERS)))
			.extracting(GeoMatch::member)
			.containsExactlyInAnyOrder("paris", "orly");
		assertThat(index.nearby(GeoQuery.around(PARIS).withinRadius(1, GeoUnit.KILOMETERS))).isEmpty();
		assertThat(index.remove("paris")).isTrue();
		assertThat(index.remove("paris")).isFalse();
		assertThat(index.position("paris")).isNull();
	}

	@Test
	void aMemberMovingBetweenCellsLeavesItsOldCellInTheSameCall() {
		GeoIndex index = this.registry.create("bikes", GeoIndexSpec.byCell(20));
		GeoCells cells = new GeoCells(20);
		index.put("bike", PARIS);
		index.put("bike", LONDON);
		assertThat(redis.server().command("EXISTS", "rk:geo:{bikes}:cell:" + cells.cellOf(PARIS))).isEqualTo(0L);
		assertThat(redis.server().command("ZCARD", "rk:geo:{bikes}:cell:" + cells.cellOf(LONDON))).isEqualTo(1L);
		assertThat(redis.server().command("HGET", "rk:geo:{bikes}:members", "bike"))
			.isEqualTo(cells.cellOf(LONDON));
		assertThat(index.remove("bike")).isTrue();
		assertThat(redis.server().command("EXISTS", "rk:geo:{bikes}:cell:" + cells.cellOf(LONDON))).isEqualTo(0L);
	}

	@Test
	void expiredMembersAreNeverReturnedAndAreSweptInBoundedBatches() {
		for (GeoIndexSpec spec : List.of(GeoIndexSpec.unsharded(), GeoIndexSpec.byCell(16))) {
			redis.flushAll();
			// A fresh registry per layout: one registry gives a name one spec.
			GeoIndex index = registry().create("bikes", spec.withMemberTtl(Duration.ofHours(1)).withSweepBatch(2));
			RedisGeoIndex pinned = (RedisGeoIndex) index;
			long start = 1_000_000_000L;
			pinned.pinnedNow = start;
			Map<String, GeoPoint> fleet = new LinkedHashMap<>();
			for (int i = 0; i < 5; i++) {
				fleet.put("old-" + i, GeoPoint.ofLatLon(48.85 + i * 0.001, 2.35));
			}
			index.putAll(fleet);
			pinned.pinnedNow = start + 1_800_000;
			index.put("fresh", PARIS);
			pinned.pinnedNow = start + 3_600_000 - 1;
			assertThat(index.nearby(GeoQuery.around(PARIS).withinRadius(5, GeoUnit.KILOMETERS).limit(3))).hasSize(3);
			pinned.pinnedNow = start + 3_600_000;
			assertThat(index.position("old-0")).isNull();
			assertThat(index.distance("fresh", "old-1", GeoUnit.METERS)).isNull();
			// Expired members filled COUNT 1 in the set: the script asks again until a fresh one comes.
			assertThat(index.nearby(GeoQuery.around(GeoPoint.ofLatLon(48.85, 2.35)).withinRadius(5, GeoUnit.KILOMETERS).limit(1)))
				.extracting(GeoMatch::member)
				.containsExactly("fresh");
			assertThat(index.sweepExpired()).isEqualTo(2);
			assertThat(index.sweepExpired()).isEqualTo(2);
			assertThat(index.sweepExpired()).isEqualTo(1);
			assertThat(index.sweepExpired()).isZero();
			assertThat(index.position("fresh")).isNotNull();
			// Every key carries the member TTL.
			for (Object key : (List<?>) redis.server().command("KEYS", "rk:geo:*")) {
				assertThat((Long) redis.server().command("PTTL", key.toString())).as(key.toString()).isPositive();
			}
			assertThat(operations()).contains("bikes expired 2", "bikes expired 1");
		}
	}

	@Test
	void aSearchWithoutPositionsFindsTheSameMatchesAndRedisSendsNoCoordinates() throws Exception {
		Map<String, GeoPoint> fleet = new LinkedHashMap<>();
		for (int i = 0; i < 60; i++) {
			// About 6 km by 4 km: a search of an index sharded at precision 26 covers several cells.
			fleet.put("bike-" + i, GeoPoint.ofLatLon(48.84 + (i % 6) * 0.007, 2.32 + (i / 6) * 0.008));
		}
		List<GeoQuery> queries = List.of(GeoQuery.around(PARIS).withinRadius(3, GeoUnit.KILOMETERS).limit(25),
				GeoQuery.around(PARIS).withinBox(4, 3, GeoUnit.KILOMETERS).order(GeoOrder.FARTHEST_FIRST).limit(7),
				GeoQuery.aroundMember("bike-30").withinRadius(1500, GeoUnit.METERS));
		Duration hour = Duration.ofHours(1);
		List<GeoIndexSpec> specs = List.of(GeoIndexSpec.unsharded(), GeoIndexSpec.byCell(26),
				GeoIndexSpec.unsharded().withMemberTtl(hour), GeoIndexSpec.byCell(26).withMemberTtl(hour));
		for (int s = 0; s < specs.size(); s++) {
			GeoIndex index = this.registry.create("fleet" + s, specs.get(s));
			index.putAll(fleet);
			for (GeoQuery query : queries) {
				List<GeoMatch> withPositions = index.nearby(query);
				assertThat(withPositions).as("%s", specs.get(s)).isNotEmpty().allSatisfy((match) -> assertThat(match.position()).isNotNull());
				List<GeoMatch> expected = withPositions.stream()
					.map((match) -> new GeoMatch(match.member(), match.distance(), null))
					.toList();
				assertThat(index.nearby(query.withoutPositions())).as("%s", specs.get(s)).isEqualTo(expected);
				assertThat(index.nearbyAsync(query.withoutPositions()).toCompletableFuture().get()).isEqualTo(expected);
			}
		}
		// The plain path (no expiry): the slow log, told to keep every command, shows what was sent.
		redis.server().command("CONFIG", "SET", "slowlog-log-slower-than", "0");
		try {
			for (String name : List.of("fleet0", "fleet1")) {
				redis.server().command("SLOWLOG", "RESET");
				this.registry.get(name).nearby(queries.get(0).withoutPositions());
				List<List<?>> searches = ((List<?>) redis.server().command("SLOWLOG", "GET", "100")).stream()
					.<List<?>>map((entry) -> (List<?>) ((List<?>) entry).get(3))
					.filter((arguments) -> "GEOSEARCH".equals(arguments.get(0).toString()))
					.toList();
				assertThat(searches).as(name).isNotEmpty().allSatisfy((arguments) -> assertThat(arguments)
					.extracting(Object::toString)
					.contains("WITHDIST")
					.doesNotContain("WITHCOORD"));
			}
		}
		finally {
			redis.server().command("CONFIG", "SET", "slowlog-log-slower-than", "10000");
		}
	}

	@Test
	void asyncVariantsGiveTheSameAnswers() throws Exception {
		GeoIndex index = this.registry.create("async", GeoIndexSpec.byCell(18));
		index.putAsync("paris", PARIS).toCompletableFuture().get();
		index.putAllAsync(Map.of("louvre", LOUVRE)).toCompletableFuture().get();
		assertThat(index.positionAsync("louvre").toCompletableFuture().get()).isNotNull();
		assertThat(index.distanceAsync("paris", "louvre", GeoUnit.KILOMETERS).toCompletableFuture().get())
			.isCloseTo(1.157, within(0.005));
		assertThat(index.nearbyAsync(GeoQuery.around(PARIS).withinRadius(3, GeoUnit.KILOMETERS))
			.toCompletableFuture()
			.get()).extracting(GeoMatch::member).containsExactly("paris", "louvre");
		assertThat(index.removeAsync("paris").toCompletableFuture().get()).isTrue();
		assertThat(index.sweepExpiredAsync().toCompletableFuture().get()).isZero();
	}

	@Test
	void invalidInputIsRejectedBeforeRedisWithTheReason() {
		assertThatIllegalArgumentException().isThrownBy(() -> GeoPoint.ofLatLon(85.06, 0))
			.withMessageContaining("latitude must be a finite number from -85.05112878 to 85.05112878");
		assertThatIllegalArgumentException().isThrownBy(() -> new GeoPoint(180.0001, 0))
			.withMessageContaining("longitude must be a finite number from -180 to 180");
		assertThatIllegalArgumentException().isThrownBy(() -> new GeoPoint(Double.NaN, 0));
		assertThatIllegalArgumentException().isThrownBy(() -> new GeoPoint(0, Double.POSITIVE_INFINITY));
		assertThat(GeoPoint.ofLatLon(-85.05112878, -180)).isNotNull();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> GeoQuery.around(PARIS).withinRadius(-1, GeoUnit.METERS))
			.withMessageContaining("radius must be a positive finite number");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> GeoQuery.around(PARIS).withinRadius(Double.NaN, GeoUnit.METERS));
		assertThatIllegalArgumentException().isThrownBy(() -> GeoQuery.around(PARIS).withinBox(1, 0, GeoUnit.METERS));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> GeoQuery.around(PARIS).withinRadius(1, GeoUnit.METERS).limit(0))
			.withMessage("limit must be at least 1, was 0");
		GeoIndex index = this.registry.create("bounded", GeoIndexSpec.byCell(20).withMaxRadiusMeters(5000).withMaxLimit(10));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> index.nearby(GeoQuery.around(PARIS).withinRadius(6, GeoUnit.KILOMETERS)))
			.withMessageContaining("more than the index's maximum of 5000 m");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> index.nearbyAsync(GeoQuery.around(PARIS).withinRadius(1, GeoUnit.KILOMETERS).limit(11)))
			.withMessageContaining("limit must be at most 10");
		GeoIndex fine = this.registry.create("fine", GeoIndexSpec.byCell(40).withMaxRadiusMeters(1_000_000));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> fine.nearby(GeoQuery.around(PARIS).withinRadius(100, GeoUnit.KILOMETERS)))
			.withMessageContaining("cells of this index, more than 4096");
		assertThat(operations()).isEmpty();
	}

	@Test
	void specsAndNamesAreValidatedWithTheComponent() {
		assertThatExceptionOfType(InvalidSpecException.class).isThrownBy(() -> GeoIndexSpec.byCell(21))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("precision"));
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> GeoIndexSpec.unsharded().withMemberTtl(Duration.ZERO))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("memberTtl"));
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> GeoIndexSpec.unsharded().withMaxRadiusMeters(0))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("maxRadiusMeters"));
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> GeoIndexSpec.unsharded().withMaxLimit(0))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("maxLimit"));
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> GeoIndexSpec.unsharded().withSweepBatch(0))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("sweepBatch"));
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.get("nope"))
			.withMessageContaining("redis-kit.geo.indexes.nope");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.registry.create("a:b", GeoIndexSpec.unsharded()))
			.withMessageContaining("Geo index name");
		GeoIndex index = this.registry.create("ok", GeoIndexSpec.unsharded());
		assertThat(this.registry.get("ok")).isSameAs(index);
		assertThat(this.registry.names()).containsExactly("ok");
	}

	@Test
	void membersAreDataEvenWithBracesAndPercentSigns() {
		GeoIndex index = this.registry.create("hostile", GeoIndexSpec.byCell(20));
		String member = "{x}%25 ~ é \u0000 " + "m".repeat(10_000);
		index.put(member, PARIS);
		assertThat(index.nearby(GeoQuery.around(PARIS).withinRadius(10, GeoUnit.METERS)))
			.extracting(GeoMatch::member)
			.containsExactly(member);
		assertThat(index.remove(member)).isTrue();
		GeoIndex regions = this.registry.create("regions", GeoIndexSpec.byRegion());
		regions.region("}{").put("a", PARIS);
		assertThat(redis.server().command("EXISTS", "rk:geo:{regions:%7D%7B}")).isEqualTo(1L);
	}

}
