/**
 * Geo indexes: {@link io.rediskit.geo.GeoIndexRegistry} hands out {@link io.rediskit.geo.GeoIndex}es that keep
 * positions in Redis geo sets, unsharded, split into geohash cells or by a caller-given region, with optional
 * per-member expiry; every write and every search is one Lua script call.
 */
@NullMarked
package io.rediskit.geo;

import org.jspecify.annotations.NullMarked;
