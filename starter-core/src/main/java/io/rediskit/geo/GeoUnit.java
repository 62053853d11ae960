package io.rediskit.geo;

/** Units of distance, with the factors Redis geo commands use. */
public enum GeoUnit {

	/** Meters. */
	METERS(1),

	/** Kilometers. */
	KILOMETERS(1000),

	/** International miles, 1609.34 m as Redis counts them. */
	MILES(1609.34),

	/** Feet, 0.3048 m. */
	FEET(0.3048);

	private final double meters;

	GeoUnit(double meters) {
		this.meters = meters;
	}

	/**
	 * @param value a distance in this unit
	 * @return it in meters
	 */
	public double toMeters(double value) {
		return value * this.meters;
	}

	/**
	 * @param meters a distance in meters
	 * @return it in this unit
	 */
	public double fromMeters(double meters) {
		return meters / this.meters;
	}

}
