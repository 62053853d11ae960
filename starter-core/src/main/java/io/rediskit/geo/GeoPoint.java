package io.rediskit.geo;

/**
 * A position on the sphere Redis geo commands use, validated before it reaches Redis: latitude within
 * {@value #MAX_LATITUDE} degrees either side of the equator (the limit of the Web Mercator projection Redis
 * indexes by), longitude within 180 degrees either side of Greenwich, neither NaN nor infinite.
 * <p>
 * Redis stores a position as a 52-bit geohash, so it reads back within about 0.6 m of what was written.
 *
 * @param longitude degrees east, from -180 to 180
 * @param latitude degrees north, from -85.05112878 to 85.05112878
 */
public record GeoPoint(double longitude, double latitude) {

	/** Largest absolute latitude Redis accepts. */
	public static final double MAX_LATITUDE = 85.05112878;

	/** Largest absolute longitude. */
	public static final double MAX_LONGITUDE = 180;

	/**
	 * Validates the point.
	 * @throws IllegalArgumentException naming the coordinate and the allowed range
	 */
	public GeoPoint {
		if (!Double.isFinite(longitude) || Math.abs(longitude) > MAX_LONGITUDE) {
			throw new IllegalArgumentException(
					"longitude must be a finite number from -180 to 180 degrees, was " + longitude);
		}
		if (!Double.isFinite(latitude) || Math.abs(latitude) > MAX_LATITUDE) {
			throw new IllegalArgumentException("latitude must be a finite number from -85.05112878 to 85.05112878 "
					+ "degrees (the range Redis geo sets index), was " + latitude);
		}
	}

	/**
	 * A point from latitude and longitude, in the order maps usually write them.
	 * @param latitude degrees north
	 * @param longitude degrees east
	 * @return the point
	 */
	public static GeoPoint ofLatLon(double latitude, double longitude) {
		return new GeoPoint(longitude, latitude);
	}

	/**
	 * The distance to another point as Redis computes it ({@code GEODIST}): the haversine formula on a sphere
	 * of radius 6372797.560856 m, so up to 0.5% off the distance on the Earth's ellipsoid.
	 * @param other the other point
	 * @param unit the unit of the answer
	 * @return the distance
	 */
	public double distanceTo(GeoPoint other, GeoUnit unit) {
		return unit.fromMeters(GeoCells.distanceMeters(this, other));
	}

}
