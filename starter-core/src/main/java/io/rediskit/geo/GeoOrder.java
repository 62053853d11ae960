package io.rediskit.geo;

/** The order of a {@link GeoIndex#nearby(GeoQuery) nearby} answer. */
public enum GeoOrder {

	/** Nearest first; a limit keeps the nearest. */
	NEAREST_FIRST,

	/** Farthest first; a limit keeps the farthest within the area. */
	FARTHEST_FIRST

}
