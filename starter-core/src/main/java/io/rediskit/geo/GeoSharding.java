package io.rediskit.geo;

/**
 * How a {@link GeoIndex} splits its members over Redis keys. One huge geo set is a big key: slow to migrate,
 * slow to delete, and every search of it touches one structure. Sharding keeps each key small.
 */
public enum GeoSharding {

	/** One geo set: the plain {@code GEOADD}/{@code GEOSEARCH} layout, one key per index. */
	NONE,

	/**
	 * One geo set per geohash cell of the spec's {@link GeoIndexSpec#precision() precision}, plus a hash of
	 * member to cell. A search queries every cell that can hold a match, in one script, and merges by
	 * distance; the answer is the one an unsharded index gives. All cells of an index share its hash tag, so a
	 * member moves between cells atomically, and the index lives on one cluster node: to spread load over
	 * nodes, shard by {@link #REGION} or use several indexes.
	 */
	GEOHASH_CELL,

	/**
	 * One geo set per region the caller names ({@link GeoIndex#region(String)}), each in its own hash tag, so
	 * regions spread over the masters of a cluster. A member belongs to the region it was put in; moving it to
	 * another region is a remove and a put, not atomic. A search over several regions queries them in parallel
	 * and merges by distance.
	 */
	REGION

}
