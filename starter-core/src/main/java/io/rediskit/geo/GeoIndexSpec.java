package io.rediskit.geo;

import java.time.Duration;
import java.util.Objects;

import io.rediskit.support.Expiry;
import io.rediskit.support.InvalidSpecException;
import org.jspecify.annotations.Nullable;

/**
 * What a geo index does: how it is {@link GeoSharding sharded}, the geohash precision of its cells, whether
 * members expire, and the bounds of a search. Immutable; {@code with...} methods return copies.
 *
 * <pre>{@code
 * GeoIndexSpec spec = GeoIndexSpec.byCell(20).withMemberTtl(Duration.ofMinutes(5));
 * }</pre>
 *
 * @param sharding how members are split over keys
 * @param precision for {@link GeoSharding#GEOHASH_CELL}, the bits of geohash that name a cell, even, from
 * {@value #MIN_PRECISION} to {@value #MAX_PRECISION}: {@code 2^(precision/2)} columns of longitude by as many
 * rows of latitude (20 bits: cells of about 39 km by 17 km at the equator); ignored by the other shardings
 * @param memberTtl how long a member's position stays valid after its last put, from 1 ms to
 * {@link Expiry#MAX 100 years}, or {@code null} for ever; an
 * expired member is never returned and is removed by a bounded sweep
 * @param maxRadiusMeters the largest search radius accepted (for a box, half its width plus half its height)
 * @param maxLimit the most matches one search may ask for
 * @param sweepBatch the most expired members one put or one {@link GeoIndex#sweepExpired()} removes
 */
public record GeoIndexSpec(GeoSharding sharding, int precision, @Nullable Duration memberTtl,
		double maxRadiusMeters, int maxLimit, int sweepBatch) {

	/** Smallest precision of a cell. */
	public static final int MIN_PRECISION = 2;

	/** Largest precision of a cell: cells of about 38 m by 17 m at the equator. */
	public static final int MAX_PRECISION = 40;

	/** Precision used when none is given. */
	public static final int DEFAULT_PRECISION = 20;

	/** Largest radius accepted by default: 100 km. */
	public static final double DEFAULT_MAX_RADIUS_METERS = 100_000;

	/** Half the Earth's circumference on Redis's sphere: no search needs more. */
	public static final double MAX_RADIUS_METERS = Math.PI * GeoCells.EARTH_RADIUS_METERS;

	/** Most matches one search may ask for by default. */
	public static final int DEFAULT_MAX_LIMIT = 1000;

	/** Largest {@code maxLimit} accepted. */
	public static final int MAX_LIMIT = 100_000;

	/** Most expired members one call removes by default. */
	public static final int DEFAULT_SWEEP_BATCH = 100;

	/** Largest sweep batch: bounds how long one script runs. */
	public static final int MAX_SWEEP_BATCH = 10_000;

	/** Shortest member expiry. */
	public static final Duration MIN_MEMBER_TTL = Duration.ofMillis(1);

	/**
	 * Validates the spec.
	 * @throws InvalidSpecException naming the component and the reason
	 */
	public GeoIndexSpec {
		Objects.requireNonNull(sharding, "sharding must not be null");
		if (precision < MIN_PRECISION || precision > MAX_PRECISION || precision % 2 != 0) {
			throw new InvalidSpecException("precision", "must be an even number of bits from " + MIN_PRECISION
					+ " to " + MAX_PRECISION + ", was " + precision);
		}
		if (memberTtl != null && memberTtl.compareTo(MIN_MEMBER_TTL) < 0) {
			throw new InvalidSpecException("memberTtl", "must be at least 1ms, was " + memberTtl);
		}
		Expiry.requireAtMostMax("memberTtl", memberTtl);
		if (!(maxRadiusMeters > 0) || maxRadiusMeters > MAX_RADIUS_METERS) {
			throw new InvalidSpecException("maxRadiusMeters", "must be above 0 and at most " + (long) MAX_RADIUS_METERS
					+ " (half the Earth's circumference), was " + maxRadiusMeters);
		}
		if (maxLimit < 1 || maxLimit > MAX_LIMIT) {
			throw new InvalidSpecException("maxLimit", "must be from 1 to " + MAX_LIMIT + ", was " + maxLimit);
		}
		if (sweepBatch < 1 || sweepBatch > MAX_SWEEP_BATCH) {
			throw new InvalidSpecException("sweepBatch",
					"must be from 1 to " + MAX_SWEEP_BATCH + ", was " + sweepBatch);
		}
	}

	/** @return an unsharded index: one geo set, members never expire, default bounds */
	public static GeoIndexSpec unsharded() {
		return new GeoIndexSpec(GeoSharding.NONE, DEFAULT_PRECISION, null, DEFAULT_MAX_RADIUS_METERS,
				DEFAULT_MAX_LIMIT, DEFAULT_SWEEP_BATCH);
	}

	/**
	 * @param precision the bits of geohash that name a cell
	 * @return an index sharded by geohash cell
	 */
	public static GeoIndexSpec byCell(int precision) {
		return new GeoIndexSpec(GeoSharding.GEOHASH_CELL, precision, null, DEFAULT_MAX_RADIUS_METERS,
				DEFAULT_MAX_LIMIT, DEFAULT_SWEEP_BATCH);
	}

	/** @return an index sharded by caller-given region */
	public static GeoIndexSpec byRegion() {
		return new GeoIndexSpec(GeoSharding.REGION, DEFAULT_PRECISION, null, DEFAULT_MAX_RADIUS_METERS,
				DEFAULT_MAX_LIMIT, DEFAULT_SWEEP_BATCH);
	}

	/**
	 * @param memberTtl how long a position stays valid after its last put; {@code null} for ever
	 * @return a copy with that expiry
	 */
	public GeoIndexSpec withMemberTtl(@Nullable Duration memberTtl) {
		return new GeoIndexSpec(this.sharding, this.precision, memberTtl, this.maxRadiusMeters, this.maxLimit,
				this.sweepBatch);
	}

	/**
	 * @param maxRadiusMeters the largest search radius accepted
	 * @return a copy with that bound
	 */
	public GeoIndexSpec withMaxRadiusMeters(double maxRadiusMeters) {
		return new GeoIndexSpec(this.sharding, this.precision, this.memberTtl, maxRadiusMeters, this.maxLimit,
				this.sweepBatch);
	}

	/**
	 * @param maxLimit the most matches one search may ask for
	 * @return a copy with that bound
	 */
	public GeoIndexSpec withMaxLimit(int maxLimit) {
		return new GeoIndexSpec(this.sharding, this.precision, this.memberTtl, this.maxRadiusMeters, maxLimit,
				this.sweepBatch);
	}

	/**
	 * @param sweepBatch the most expired members one call removes
	 * @return a copy with that bound
	 */
	public GeoIndexSpec withSweepBatch(int sweepBatch) {
		return new GeoIndexSpec(this.sharding, this.precision, this.memberTtl, this.maxRadiusMeters, this.maxLimit,
				sweepBatch);
	}

	long memberTtlMillis() {
		return (this.memberTtl != null) ? Math.max(1, this.memberTtl.toMillis()) : 0;
	}

}
