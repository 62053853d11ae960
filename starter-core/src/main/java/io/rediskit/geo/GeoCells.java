package io.rediskit.geo;

import java.util.ArrayList;
import java.util.List;

/**
 * The geohash cells of a precision: which cell holds a point, and which cells can hold a match of a search.
 * Cells split longitude -180..180 and latitude -85.05112878..85.05112878 (Redis's geohash ranges) into
 * {@code 2^(precision/2)} equal steps each. The cover of a search is computed on the sphere Redis measures on,
 * widened by 1% and 10 m so that positions rounded by Redis's 52-bit geohash (about 0.6 m) are never missed;
 * an extra cell costs a lookup of a key that holds no match, a missing one would lose matches.
 */
final class GeoCells {

	/** The sphere's radius in Redis's geo code. */
	static final double EARTH_RADIUS_METERS = 6372797.560856;

	/** Most cells one search may cover. */
	static final int MAX_CELLS_PER_SEARCH = 4096;

	private final int bitsPerAxis;

	private final int steps;

	GeoCells(int precision) {
		this.bitsPerAxis = precision / 2;
		this.steps = 1 << this.bitsPerAxis;
	}

	/**
	 * @param point a point
	 * @return the id of the cell that holds it, as it appears in the cell's key
	 */
	String cellOf(GeoPoint point) {
		return id(column(point.longitude()), row(point.latitude()));
	}

	/**
	 * The cells that can hold a member within {@code reachMeters} of the center.
	 * @throws IllegalArgumentException if there are more than {@value #MAX_CELLS_PER_SEARCH}
	 */
	List<String> cover(GeoPoint center, double reachMeters) {
		double angle = (reachMeters * 1.01 + 10) / EARTH_RADIUS_METERS;
		double latMin = Math.max(-GeoPoint.MAX_LATITUDE, center.latitude() - Math.toDegrees(angle));
		double latMax = Math.min(GeoPoint.MAX_LATITUDE, center.latitude() + Math.toDegrees(angle));
		int rowMin = row(latMin);
		int rowMax = row(latMax);
		// The widest east-west extent of the cap is at its latitude farthest from the equator.
		double farthest = Math.max(Math.abs(center.latitude() - Math.toDegrees(angle)),
				Math.abs(center.latitude() + Math.toDegrees(angle)));
		double sine = (angle >= Math.PI / 2 || farthest >= 90) ? 2 : Math.sin(angle) / Math.cos(Math.toRadians(farthest));
		int columnMin;
		int columns;
		if (sine >= 1) {
			columnMin = 0;
			columns = this.steps;
		}
		else {
			double halfWidth = Math.toDegrees(Math.asin(sine));
			columnMin = column(normalize(center.longitude() - halfWidth));
			int columnMax = column(normalize(center.longitude() + halfWidth));
			columns = Math.floorMod(columnMax - columnMin, this.steps) + 1;
			if (2 * halfWidth >= 360) {
				columns = this.steps;
			}
		}
		long count = (long) columns * (rowMax - rowMin + 1);
		if (count > MAX_CELLS_PER_SEARCH) {
			throw new IllegalArgumentException("The search area covers " + count + " cells of this index, more than "
					+ MAX_CELLS_PER_SEARCH + ": search a smaller area or give the index a lower precision");
		}
		List<String> cells = new ArrayList<>((int) count);
		for (int c = 0; c < columns; c++) {
			int column = (columnMin + c) % this.steps;
			for (int row = rowMin; row <= rowMax; row++) {
				cells.add(id(column, row));
			}
		}
		return cells;
	}

	private String id(int column, int row) {
		// The precision is part of the id: after a change of precision a put still finds (and leaves) the
		// member's old cell through the member's stored cell id.
		return (2 * this.bitsPerAxis) + "." + column + "." + row;
	}

	private int column(double longitude) {
		return clamp((longitude + 180) / 360);
	}

	private int row(double latitude) {
		return clamp((latitude + GeoPoint.MAX_LATITUDE) / (2 * GeoPoint.MAX_LATITUDE));
	}

	private int clamp(double fraction) {
		int step = (int) Math.floor(fraction * this.steps);
		return Math.min(this.steps - 1, Math.max(0, step));
	}

	private static double normalize(double longitude) {
		double wrapped = ((longitude + 180) % 360 + 360) % 360 - 180;
		return (wrapped == -180 && longitude > 0) ? 180 : wrapped;
	}

	/** Redis's {@code GEODIST}: the haversine formula on its sphere. */
	static double distanceMeters(GeoPoint a, GeoPoint b) {
		double lat1 = Math.toRadians(a.latitude());
		double lat2 = Math.toRadians(b.latitude());
		double u = Math.sin((lat2 - lat1) / 2);
		double v = Math.sin(Math.toRadians(b.longitude() - a.longitude()) / 2);
		return 2 * EARTH_RADIUS_METERS * Math.asin(Math.sqrt(u * u + Math.cos(lat1) * Math.cos(lat2) * v * v));
	}

}
