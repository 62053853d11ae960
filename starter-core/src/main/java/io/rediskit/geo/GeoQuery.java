package io.rediskit.geo;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A {@link GeoIndex#nearby(GeoQuery) nearby} search: a center (a point, or a member's stored position), an area
 * (a circle or a box around the center), the unit of distances, the most matches to return, their order and
 * whether they carry their positions. Immutable; build one with {@link #around(GeoPoint)} or {@link #aroundMember(String)}, then {@code within...}:
 *
 * <pre>{@code
 * GeoQuery query = GeoQuery.around(GeoPoint.ofLatLon(48.8566, 2.3522)).withinRadius(2, GeoUnit.KILOMETERS).limit(20);
 * }</pre>
 *
 * The index checks the area against its spec's {@link GeoIndexSpec#maxRadiusMeters() maximum radius} and the
 * limit against its {@link GeoIndexSpec#maxLimit() maximum limit} before anything reaches Redis.
 *
 * @param center the center, or {@code null} when {@code centerMember} is given
 * @param centerMember a member whose position is the center, or {@code null}
 * @param radius the circle's radius in {@code unit}, or 0 for a box
 * @param width the box's width (east-west) in {@code unit}, or 0 for a circle
 * @param height the box's height (north-south) in {@code unit}, or 0 for a circle
 * @param unit the unit of the area and of the distances returned
 * @param limit the most matches returned
 * @param order nearest or farthest first
 * @param positions whether each match carries its stored position ({@code true} unless
 * {@link #withoutPositions()})
 */
public record GeoQuery(@Nullable GeoPoint center, @Nullable String centerMember, double radius, double width,
		double height, GeoUnit unit, int limit, GeoOrder order, boolean positions) {

	/** The limit of a query built without {@link #limit(int)}. */
	public static final int DEFAULT_LIMIT = 100;

	/**
	 * Validates what a query can check alone.
	 * @throws IllegalArgumentException if the center is missing or given twice, the area is neither one circle
	 * nor one box with positive finite sides, or the limit is below 1
	 */
	public GeoQuery {
		Objects.requireNonNull(unit, "unit must not be null");
		Objects.requireNonNull(order, "order must not be null");
		if ((center == null) == (centerMember == null)) {
			throw new IllegalArgumentException("A query needs exactly one center: a point or a member");
		}
		boolean circle = radius != 0;
		boolean box = width != 0 || height != 0;
		if (circle == box) {
			throw new IllegalArgumentException("A query needs exactly one area: withinRadius or withinBox");
		}
		if (circle && !(Double.isFinite(radius) && radius > 0)) {
			throw new IllegalArgumentException("radius must be a positive finite number, was " + radius);
		}
		if (box && !(Double.isFinite(width) && width > 0 && Double.isFinite(height) && height > 0)) {
			throw new IllegalArgumentException(
					"box width and height must be positive finite numbers, were " + width + " and " + height);
		}
		if (limit < 1) {
			throw new IllegalArgumentException("limit must be at least 1, was " + limit);
		}
	}

	/**
	 * The start of a query around a point.
	 * @param center the center
	 * @return a builder; choose the area next
	 */
	public static Around around(GeoPoint center) {
		return new Around(Objects.requireNonNull(center, "center must not be null"), null);
	}

	/**
	 * The start of a query around a member's stored position. An index that does not hold the member (or holds
	 * it expired) answers an empty list.
	 * @param member the member
	 * @return a builder; choose the area next
	 */
	public static Around aroundMember(String member) {
		return new Around(null, Objects.requireNonNull(member, "member must not be null"));
	}

	/**
	 * @param limit the most matches returned
	 * @return a copy with that limit
	 */
	public GeoQuery limit(int limit) {
		return new GeoQuery(this.center, this.centerMember, this.radius, this.width, this.height, this.unit, limit,
				this.order, this.positions);
	}

	/**
	 * @param order nearest or farthest first
	 * @return a copy in that order
	 */
	public GeoQuery order(GeoOrder order) {
		return new GeoQuery(this.center, this.centerMember, this.radius, this.width, this.height, this.unit,
				this.limit, order, this.positions);
	}

	/**
	 * A search for which members are near and how far, without where each one is: every match's
	 * {@link GeoMatch#position() position} is {@code null}. Redis then neither decodes the positions from their
	 * geohashes nor sends them ({@code GEOSEARCH} without {@code WITHCOORD}), which took 10% to 20% of the
	 * server's time per search in the {@code geo} benchmark (20 nearest of 10^6 members; a quarter when sharded
	 * by cell), and the client parses less. The members, their distances and their order are those of the same
	 * query with positions.
	 * @return a copy whose matches carry no position
	 */
	public GeoQuery withoutPositions() {
		return new GeoQuery(this.center, this.centerMember, this.radius, this.width, this.height, this.unit,
				this.limit, this.order, false);
	}

	/**
	 * @param center a point to search around instead
	 * @return a copy around that point
	 */
	public GeoQuery withCenter(GeoPoint center) {
		return new GeoQuery(center, null, this.radius, this.width, this.height, this.unit, this.limit, this.order,
				this.positions);
	}

	/** @return whether the area is a circle (else a box) */
	public boolean isCircle() {
		return this.radius != 0;
	}

	/** @return the radius of a circle that holds the whole area, in meters */
	double reachMeters() {
		// A box member is within height/2 north-south and width/2 east-west along its parallel: by the triangle
		// inequality within their sum of the center, on any sphere.
		return isCircle() ? this.unit.toMeters(this.radius) : this.unit.toMeters((this.width + this.height) / 2);
	}

	/**
	 * A query under construction: the center is chosen, the area is next.
	 */
	public static final class Around {

		private final @Nullable GeoPoint center;

		private final @Nullable String member;

		private Around(@Nullable GeoPoint center, @Nullable String member) {
			this.center = center;
			this.member = member;
		}

		/**
		 * @param radius the radius
		 * @param unit its unit, also that of the distances returned
		 * @return the query, nearest first, limited to {@value GeoQuery#DEFAULT_LIMIT}, with positions
		 */
		public GeoQuery withinRadius(double radius, GeoUnit unit) {
			return new GeoQuery(this.center, this.member, radius, 0, 0, unit, DEFAULT_LIMIT, GeoOrder.NEAREST_FIRST,
					true);
		}

		/**
		 * A box centered on the center, as {@code GEOSEARCH BYBOX} defines it: a member matches if its
		 * north-south distance is at most half the height and its distance along its own parallel at most half
		 * the width.
		 * @param width east-west extent
		 * @param height north-south extent
		 * @param unit their unit, also that of the distances returned
		 * @return the query, nearest first, limited to {@value GeoQuery#DEFAULT_LIMIT}, with positions
		 */
		public GeoQuery withinBox(double width, double height, GeoUnit unit) {
			if (width == 0 && height == 0) {
				throw new IllegalArgumentException("box width and height must be positive finite numbers, were 0");
			}
			return new GeoQuery(this.center, this.member, 0, width, height, unit, DEFAULT_LIMIT,
					GeoOrder.NEAREST_FIRST, true);
		}

	}

}
