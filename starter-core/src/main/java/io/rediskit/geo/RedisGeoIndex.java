package io.rediskit.geo;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.rediskit.geo.GeoScripts.Call;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The {@link GeoIndex} of a {@link GeoIndexRegistry}. Keys, all in the hash tag of the index (or of the index
 * and region), so that each script touches one slot:
 * <ul>
 * <li>unsharded or one region: {@code <prefix>geo:{<tag>}} the geo set, {@code ...:updated} update times;</li>
 * <li>cell-sharded: {@code <prefix>geo:{<name>}:cell:<precision>.<column>.<row>} a geo set per cell,
 * {@code ...:members} member to cell, {@code ...:updated} update times.</li>
 * </ul>
 * The update times exist only when members expire; then every key expires a member TTL after the last put.
 */
final class RedisGeoIndex implements GeoIndex {

	/** Most members one put script call writes. */
	static final int PUT_BATCH = 1000;

	private static final String AREA = "geo";

	private final GeoIndexParts parts;

	private final @Nullable String region;

	private final @Nullable GeoCells cells;

	private final byte[] set;

	private final byte[] members;

	private final byte[] updates;

	private final String cellPrefix;

	private final Comparator<GeoMatch> nearestFirst = Comparator.comparingDouble(GeoMatch::distance)
		.thenComparing(GeoMatch::member);

	private final Comparator<GeoMatch> farthestFirst = Comparator.comparingDouble(GeoMatch::distance)
		.reversed()
		.thenComparing(GeoMatch::member);

	/** Time in ms the scripts use instead of the server's, for tests. */
	volatile @Nullable Long pinnedNow;

	RedisGeoIndex(GeoIndexParts parts, @Nullable String region) {
		this.parts = parts;
		this.region = region;
		this.cells = (parts.spec().sharding() == GeoSharding.GEOHASH_CELL) ? new GeoCells(parts.spec().precision())
				: null;
		// The index name holds no ':' (see Names), so name and region cannot run into each other.
		String tag = (region != null) ? parts.name() + ":" + region : parts.name();
		this.set = utf8(parts.keyNaming().key(AREA, tag));
		this.members = utf8(parts.keyNaming().key(AREA, tag, "members"));
		this.updates = utf8(parts.keyNaming().key(AREA, tag, "updated"));
		this.cellPrefix = parts.keyNaming().key(AREA, tag, "cell:");
	}

	@Override
	public String name() {
		return this.parts.name();
	}

	@Override
	public GeoIndexSpec spec() {
		return this.parts.spec();
	}

	@Override
	public GeoIndex region(String region) {
		Objects.requireNonNull(region, "region must not be null");
		if (spec().sharding() != GeoSharding.REGION || this.region != null) {
			throw new IllegalStateException("Geo index '" + name() + "' is sharded by " + spec().sharding()
					+ ((this.region != null) ? " and this is already its region's index" : "")
					+ "; region(...) applies to the top level of an index sharded by REGION");
		}
		RedisGeoIndex index = new RedisGeoIndex(this.parts, region);
		index.pinnedNow = this.pinnedNow;
		return index;
	}

	@Override
	public void put(String member, GeoPoint position) {
		Stages.join(putAsync(member, position));
	}

	@Override
	public CompletionStage<Void> putAsync(String member, GeoPoint position) {
		Objects.requireNonNull(member, "member must not be null");
		Objects.requireNonNull(position, "position must not be null");
		return timed("put", writeBatches(List.of(Map.entry(member, position))));
	}

	@Override
	public void putAll(Map<String, GeoPoint> positions) {
		Stages.join(putAllAsync(positions));
	}

	@Override
	public CompletionStage<Void> putAllAsync(Map<String, GeoPoint> positions) {
		Objects.requireNonNull(positions, "positions must not be null");
		positions.forEach((member, position) -> {
			Objects.requireNonNull(member, "member must not be null");
			Objects.requireNonNull(position, () -> "position of '" + member + "' must not be null");
		});
		return timed("put-all", writeBatches(new ArrayList<>(positions.entrySet())));
	}

	private Supplier<CompletionStage<Void>> writeBatches(List<Map.Entry<String, GeoPoint>> entries) {
		requireSingleSet();
		List<Call> calls = new ArrayList<>();
		for (int from = 0; from < entries.size(); from += PUT_BATCH) {
			List<Map.Entry<String, GeoPoint>> batch = entries.subList(from, Math.min(entries.size(), from + PUT_BATCH));
			calls.add((this.cells != null)
					? GeoScripts.putCells(this.members, this.updates, this.cellPrefix, this.cells, ttl(), this.pinnedNow,
							spec().sweepBatch(), batch)
					: GeoScripts.putSet(this.set, this.updates, ttl(), this.pinnedNow, spec().sweepBatch(), batch));
		}
		return () -> {
			CompletableFuture<?>[] stages = new CompletableFuture<?>[calls.size()];
			for (int i = 0; i < calls.size(); i++) {
				stages[i] = this.<Long>execute(calls.get(i), ReturnType.INTEGER).thenAccept(this::swept)
					.toCompletableFuture();
			}
			return CompletableFuture.allOf(stages);
		};
	}

	@Override
	public boolean remove(String member) {
		return Stages.join(removeAsync(member));
	}

	@Override
	public CompletionStage<Boolean> removeAsync(String member) {
		Objects.requireNonNull(member, "member must not be null");
		requireSingleSet();
		Call call = (this.cells != null) ? GeoScripts.removeCells(this.members, this.updates, this.cellPrefix, member)
				: GeoScripts.removeSet(this.set, this.updates, member);
		return timed("remove", () -> this.<Long>execute(call, ReturnType.INTEGER).thenApply((removed) -> removed != null && removed > 0));
	}

	@Override
	public @Nullable GeoPoint position(String member) {
		return Stages.join(positionAsync(member));
	}

	@Override
	public CompletionStage<@Nullable GeoPoint> positionAsync(String member) {
		Objects.requireNonNull(member, "member must not be null");
		Call call = positionsCall(List.of(member));
		return timed("position", () -> positions(call, 1).thenApply((positions) -> positions.get(0)));
	}

	@Override
	public @Nullable Double distance(String member, String other, GeoUnit unit) {
		return Stages.join(distanceAsync(member, other, unit));
	}

	@Override
	public CompletionStage<@Nullable Double> distanceAsync(String member, String other, GeoUnit unit) {
		Objects.requireNonNull(member, "member must not be null");
		Objects.requireNonNull(other, "other must not be null");
		Objects.requireNonNull(unit, "unit must not be null");
		Call call = positionsCall(List.of(member, other));
		return timed("distance", () -> positions(call, 2).thenApply((positions) -> {
			GeoPoint a = positions.get(0);
			GeoPoint b = positions.get(1);
			return (a != null && b != null) ? a.distanceTo(b, unit) : null;
		}));
	}

	private Call positionsCall(List<String> names) {
		requireSingleSet();
		return (this.cells != null)
				? GeoScripts.positionsCells(this.members, this.updates, this.cellPrefix, ttl(), this.pinnedNow, names)
				: GeoScripts.positionsSet(this.set, this.updates, ttl(), this.pinnedNow, names);
	}

	private CompletionStage<List<@Nullable GeoPoint>> positions(Call call, int count) {
		return this.<List<Object>>execute(call, ReturnType.MULTI)
			.thenApply((reply) -> GeoScripts.readPositions(reply, count));
	}

	@Override
	public List<GeoMatch> nearby(GeoQuery query) {
		return Stages.join(nearbyAsync(query));
	}

	@Override
	public CompletionStage<List<GeoMatch>> nearbyAsync(GeoQuery query) {
		checkQuery(query);
		requireSingleSet();
		GeoPoint center = query.center();
		if (center != null) {
			Supplier<CompletionStage<List<GeoMatch>>> search = searchIn(center, query);
			return timed("nearby", () -> search(List.of(search.get()), query));
		}
		Call position = positionsCall(List.of(Objects.requireNonNull(query.centerMember())));
		return timed("nearby", () -> positions(position, 1).thenCompose((positions) -> {
			GeoPoint found = positions.get(0);
			return (found != null) ? search(List.of(searchIn(found, query).get()), query)
					: CompletableFuture.completedFuture(List.of());
		}));
	}

	@Override
	public List<GeoMatch> nearby(GeoQuery query, Collection<String> regions) {
		return Stages.join(nearbyAsync(query, regions));
	}

	@Override
	public CompletionStage<List<GeoMatch>> nearbyAsync(GeoQuery query, Collection<String> regions) {
		checkQuery(query);
		Objects.requireNonNull(regions, "regions must not be null");
		GeoPoint center = query.center();
		if (center == null) {
			throw new IllegalArgumentException(
					"A search over several regions goes around a point; search around a member in its region's index");
		}
		List<Supplier<CompletionStage<List<GeoMatch>>>> searches = new ArrayList<>(regions.size());
		for (String name : regions) {
			searches.add(((RedisGeoIndex) region(name)).searchIn(center, query));
		}
		return timed("nearby", () -> search(searches.stream().map(Supplier::get).toList(), query));
	}

	private List<byte[]> setsCovering(GeoPoint center, GeoQuery query) {
		return (this.cells != null)
				? this.cells.cover(center, query.reachMeters()).stream().map((cell) -> utf8(this.cellPrefix + cell)).toList()
				: List.of(this.set);
	}

	/**
	 * Searches this index's sets. Members that never expire need no script: one plain {@code GEOSEARCH} per set
	 * (the one set, or each cell the area covers), sent back to back on the shared connection, so pipelined in
	 * one round trip, and merged here (a script's copy of the matches through Lua cost a third of the
	 * throughput, measured). Members that expire go through the search script, which leaves expired members out
	 * and reads every cell of the area in one call. What the search needs is worked out (and an area of too many
	 * cells rejected) at once; the returned supplier sends it.
	 */
	private Supplier<CompletionStage<List<GeoMatch>>> searchIn(GeoPoint center, GeoQuery query) {
		List<byte[]> sets = setsCovering(center, query);
		if (ttl() == 0) {
			byte[][] args = GeoScripts.geosearch(center, query);
			return () -> {
				List<CompletableFuture<List<Object>>> replies = new ArrayList<>(sets.size());
				for (byte[] set : sets) {
					replies.add(this.parts.commands()
						.<List<Object>>executeAsync(GeoScripts.GEOSEARCH, ReturnType.MULTI, set, args)
						.toCompletableFuture());
				}
				return CompletableFuture.allOf(replies.toArray(CompletableFuture<?>[]::new)).thenApply((done) -> {
					List<GeoMatch> matches = new ArrayList<>();
					for (CompletableFuture<List<Object>> reply : replies) {
						GeoScripts.readGeosearch(reply.join(), query.unit(), matches);
					}
					return matches;
				});
			};
		}
		// The cells of one index share its hash tag: one script searches all of them.
		Call call = GeoScripts.search(sets, this.updates, ttl(), this.pinnedNow, center, query);
		return () -> this.<List<Object>>execute(call, ReturnType.MULTI).thenApply((reply) -> {
			List<GeoMatch> matches = new ArrayList<>();
			GeoScripts.readMatches(reply, query.unit(), query.positions(), matches);
			return matches;
		});
	}

	/** Waits for the searches sent in parallel (regions may live on different masters), merges by distance, cuts. */
	private CompletionStage<List<GeoMatch>> search(List<CompletionStage<List<GeoMatch>>> searches, GeoQuery query) {
		List<CompletableFuture<List<GeoMatch>>> replies = searches.stream().map(CompletionStage::toCompletableFuture)
			.toList();
		return CompletableFuture.allOf(replies.toArray(CompletableFuture<?>[]::new)).thenApply((done) -> {
			List<GeoMatch> matches = new ArrayList<>();
			for (CompletableFuture<List<GeoMatch>> reply : replies) {
				matches.addAll(reply.join());
			}
			matches.sort((query.order() == GeoOrder.NEAREST_FIRST) ? this.nearestFirst : this.farthestFirst);
			return List.copyOf((matches.size() > query.limit()) ? matches.subList(0, query.limit()) : matches);
		});
	}

	@Override
	public long size() {
		return Stages.join(sizeAsync());
	}

	@Override
	public CompletionStage<Long> sizeAsync() {
		requireSingleSet();
		// The member-to-cell hash holds each member of a cell-sharded index once, whatever cell it is in.
		String command = (this.cells != null) ? "HLEN" : "ZCARD";
		byte[] key = (this.cells != null) ? this.members : this.set;
		return timed("size", () -> this.parts.commands()
			.<Long>executeAsync(command, ReturnType.INTEGER, key)
			.thenApply((count) -> (count != null) ? count : 0L));
	}

	@Override
	public long sweepExpired() {
		return Stages.join(sweepExpiredAsync());
	}

	@Override
	public CompletionStage<Long> sweepExpiredAsync() {
		requireSingleSet();
		if (ttl() == 0) {
			return CompletableFuture.completedFuture(0L);
		}
		Call call = (this.cells != null)
				? GeoScripts.sweepCells(this.members, this.updates, this.cellPrefix, ttl(), this.pinnedNow,
						spec().sweepBatch())
				: GeoScripts.sweepSet(this.set, this.updates, ttl(), this.pinnedNow, spec().sweepBatch());
		return timed("sweep", () -> this.<Long>execute(call, ReturnType.INTEGER).thenApply((removed) -> {
			long count = (removed != null) ? removed : 0;
			swept(count);
			return count;
		}));
	}

	private void swept(@Nullable Long count) {
		if (count != null && count > 0) {
			this.parts.listeners().notify((listener) -> listener.onExpiredRemoved(name(), count));
		}
	}

	private void checkQuery(GeoQuery query) {
		Objects.requireNonNull(query, "query must not be null");
		if (query.reachMeters() > spec().maxRadiusMeters()) {
			throw new IllegalArgumentException("The search area of geo index '" + name() + "' reaches "
					+ (long) Math.ceil(query.reachMeters()) + " m from its center (a box: half its width plus half "
					+ "its height), more than the index's maximum of " + (long) spec().maxRadiusMeters() + " m");
		}
		if (query.limit() > spec().maxLimit()) {
			throw new IllegalArgumentException("limit must be at most " + spec().maxLimit() + " for geo index '"
					+ name() + "', was " + query.limit());
		}
	}

	private void requireSingleSet() {
		if (spec().sharding() == GeoSharding.REGION && this.region == null) {
			throw new IllegalStateException("Geo index '" + name()
					+ "' is sharded by region: use region(name) for one region, or nearby(query, regions)");
		}
	}

	private long ttl() {
		return spec().memberTtlMillis();
	}

	private <T> CompletionStage<@Nullable T> execute(Call call, ReturnType returnType) {
		return this.parts.scripts().executeAsync(call.script(), returnType, call.numKeys(), call.keysAndArgs());
	}

	/** Observes the operation; a call that throws before it has a stage fails the stage, as every async call. */
	private <R> CompletionStage<R> timed(String operation, Supplier<? extends CompletionStage<R>> work) {
		try {
			return this.parts.calls().observed(operation, work);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
