package io.rediskit.geo;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * A set of named positions in Redis (bikes, restaurants, people), searched by distance. Get one from
 * {@link GeoIndexRegistry}.
 * <p>
 * Guarantees: each write is one Lua script call, atomic on the server. In an index sharded by
 * {@link GeoSharding#GEOHASH_CELL geohash cell}, a member that moves to another cell leaves its old cell in the
 * same call, so it is never in two cells or none. {@link #nearby(GeoQuery)} answers what one {@code GEOSEARCH}
 * over all the index's members would answer (a sharded index queries every cell that can hold a match and
 * merges by distance), never an expired member, and ties are broken by member name. Positions are stored as
 * 52-bit geohashes (about 0.6 m) and distances are measured on a sphere (up to 0.5% off the Earth's ellipsoid).
 * <p>
 * Limits: {@link #putAll(Map)} writes in batches of {@value RedisGeoIndex#PUT_BATCH} members, each atomic, not
 * all at once. A search around a member first reads the member's position: two script calls. Arguments are
 * validated before Redis sees them (see {@link GeoPoint}, {@link GeoQuery} and the spec's bounds). A Redis
 * failure is thrown as Spring's {@code DataAccessException}; an outage is also logged once per 10 s.
 * <p>
 * Every operation has an {@code ...Async} variant returning a {@link CompletionStage} that never blocks the
 * calling thread; invalid arguments throw at once in both.
 */
public interface GeoIndex {

	/** @return the index's name */
	String name();

	/** @return what the index does */
	GeoIndexSpec spec();

	/**
	 * The index of one region of a {@link GeoSharding#REGION region-sharded} index.
	 * @param region any string; it is data, encoded into the key's hash tag
	 * @return the region's index, with the same name and spec
	 * @throws IllegalStateException if this index is not sharded by region
	 */
	GeoIndex region(String region);

	/**
	 * Adds a member, or moves it.
	 * @param member the member
	 * @param position where it is
	 */
	void put(String member, GeoPoint position);

	/**
	 * @param member the member
	 * @param position where it is
	 * @return completes once stored
	 * @see #put(String, GeoPoint)
	 */
	CompletionStage<Void> putAsync(String member, GeoPoint position);

	/**
	 * Adds or moves many members, in atomic batches of {@value RedisGeoIndex#PUT_BATCH}.
	 * @param positions member to position
	 */
	void putAll(Map<String, GeoPoint> positions);

	/**
	 * @param positions member to position
	 * @return completes once every batch is stored
	 * @see #putAll(Map)
	 */
	CompletionStage<Void> putAllAsync(Map<String, GeoPoint> positions);

	/**
	 * Removes a member.
	 * @param member the member
	 * @return whether the index held it (an expired member not yet swept counts as held)
	 */
	boolean remove(String member);

	/**
	 * @param member the member
	 * @return whether the index held it
	 * @see #remove(String)
	 */
	CompletionStage<Boolean> removeAsync(String member);

	/**
	 * @param member the member
	 * @return its stored position, or {@code null} if absent or expired
	 */
	@Nullable GeoPoint position(String member);

	/**
	 * @param member the member
	 * @return its stored position, or {@code null}
	 * @see #position(String)
	 */
	CompletionStage<@Nullable GeoPoint> positionAsync(String member);

	/**
	 * The distance between two members, as {@code GEODIST} measures it.
	 * @param member one member
	 * @param other another member
	 * @param unit the unit of the answer
	 * @return the distance, or {@code null} if either is absent or expired
	 */
	@Nullable Double distance(String member, String other, GeoUnit unit);

	/**
	 * @param member one member
	 * @param other another member
	 * @param unit the unit of the answer
	 * @return the distance, or {@code null}
	 * @see #distance(String, String, GeoUnit)
	 */
	CompletionStage<@Nullable Double> distanceAsync(String member, String other, GeoUnit unit);

	/**
	 * The members in an area, with their distance and position, in the order asked, cut to the limit.
	 * @param query the search
	 * @return the matches; empty if the center member is absent or expired
	 * @throws IllegalArgumentException if the query exceeds the spec's radius or limit bounds
	 * @throws IllegalStateException on a region-sharded index: use {@link #region(String)} or
	 * {@link #nearby(GeoQuery, Collection)}
	 */
	List<GeoMatch> nearby(GeoQuery query);

	/**
	 * @param query the search
	 * @return the matches
	 * @see #nearby(GeoQuery)
	 */
	CompletionStage<List<GeoMatch>> nearbyAsync(GeoQuery query);

	/**
	 * Searches several regions of a region-sharded index in parallel and merges the answers by distance.
	 * @param query the search, around a point
	 * @param regions the regions to search
	 * @return the matches
	 * @throws IllegalStateException if this index is not sharded by region
	 */
	List<GeoMatch> nearby(GeoQuery query, Collection<String> regions);

	/**
	 * @param query the search, around a point
	 * @param regions the regions to search
	 * @return the matches
	 * @see #nearby(GeoQuery, Collection)
	 */
	CompletionStage<List<GeoMatch>> nearbyAsync(GeoQuery query, Collection<String> regions);

	/**
	 * Counts the members held: one {@code ZCARD} of the geo set, or for an index sharded by cell one {@code HLEN} of
	 * its member-to-cell hash, never a scan. Members past their TTL that no sweep or put has removed yet are still
	 * counted.
	 * @return how many members the index (or this region of it) holds
	 * @throws IllegalStateException on the top level of an index sharded by region, whose regions are not listed
	 * anywhere: count each {@link #region(String)}
	 */
	long size();

	/**
	 * @return how many members the index holds
	 * @see #size()
	 */
	CompletionStage<Long> sizeAsync();

	/**
	 * Removes expired members, at most the spec's {@link GeoIndexSpec#sweepBatch() sweep batch} in one script
	 * call; call again while it returns a full batch. Puts sweep too, so this matters for indexes that stop
	 * being written. Does nothing on an index whose members never expire.
	 * @return how many were removed
	 */
	long sweepExpired();

	/**
	 * @return how many were removed
	 * @see #sweepExpired()
	 */
	CompletionStage<Long> sweepExpiredAsync();

}
