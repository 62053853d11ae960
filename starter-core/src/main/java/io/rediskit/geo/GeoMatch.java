package io.rediskit.geo;

import org.jspecify.annotations.Nullable;

/**
 * One member found by {@link GeoIndex#nearby(GeoQuery)}.
 *
 * @param member the member
 * @param distance its distance from the query's center, in the query's unit (computed by Redis in meters to
 * 0.1 mm and converted)
 * @param position its stored position, or {@code null} when the query asked for none
 * ({@link GeoQuery#withoutPositions()})
 */
public record GeoMatch(String member, double distance, @Nullable GeoPoint position) {
}
