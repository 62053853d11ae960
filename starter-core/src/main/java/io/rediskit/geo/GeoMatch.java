package io.rediskit.geo;

/**
 * One member found by {@link GeoIndex#nearby(GeoQuery)}.
 *
 * @param member the member
 * @param distance its distance from the query's center, in the query's unit (computed by Redis in meters to
 * 0.1 mm and converted)
 * @param position its stored position
 */
public record GeoMatch(String member, double distance, GeoPoint position) {
}
