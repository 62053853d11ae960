package io.rediskit.autoconfigure.geo;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.rediskit.geo.GeoIndexSpec;
import io.rediskit.geo.GeoSharding;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Geo index settings, under {@code redis-kit.geo}. Each entry of {@code indexes} is an index that
 * {@link io.rediskit.geo.GeoIndexRegistry#get(String)} finds by its name:
 *
 * <pre>{@code
 * redis-kit:
 *   geo:
 *     indexes:
 *       bikes:
 *         sharding: geohash-cell
 *         precision: 20
 *         member-ttl: 5m
 * }</pre>
 *
 * Checked when the registry is built, by the rules of {@link GeoIndexSpec} and {@link io.rediskit.support.Names}; a
 * property that binds to nothing fails startup.
 */
@ConfigurationProperties(prefix = "redis-kit.geo", ignoreUnknownFields = false)
public class GeoProperties {

	/**
	 * Whether to auto-configure the geo index registry.
	 */
	private boolean enabled = true;

	/**
	 * Geo indexes by name: letters, digits, '_' and '-', at most 64 characters, no '.'.
	 */
	private Map<String, Index> indexes = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Map<String, Index> getIndexes() {
		return this.indexes;
	}

	public void setIndexes(Map<String, Index> indexes) {
		this.indexes = indexes;
	}

	/**
	 * One geo index.
	 */
	public static class Index {

		/**
		 * How members are split over keys: none (one geo set), geohash-cell (a set per cell, searched together) or
		 * region (a set per caller-given region, spread over cluster masters).
		 */
		private GeoSharding sharding = GeoSharding.NONE;

		/**
		 * For geohash-cell sharding, the geohash bits that name a cell: even, from 2 to 40 (20: cells of about 39
		 * km by 17 km at the equator).
		 */
		private int precision = GeoIndexSpec.DEFAULT_PRECISION;

		/**
		 * How long a member's position stays valid after its last put, from 1ms to 36500d (100 years); unset for
		 * ever.
		 */
		private @Nullable Duration memberTtl;

		/**
		 * Largest search radius accepted, in meters (for a box, half its width plus half its height).
		 */
		private double maxRadiusMeters = GeoIndexSpec.DEFAULT_MAX_RADIUS_METERS;

		/**
		 * Most matches one search may ask for, from 1 to 100000.
		 */
		private int maxLimit = GeoIndexSpec.DEFAULT_MAX_LIMIT;

		/**
		 * Most expired members one put or sweep removes, from 1 to 10000.
		 */
		private int sweepBatch = GeoIndexSpec.DEFAULT_SWEEP_BATCH;

		public GeoSharding getSharding() {
			return this.sharding;
		}

		public void setSharding(GeoSharding sharding) {
			this.sharding = sharding;
		}

		public int getPrecision() {
			return this.precision;
		}

		public void setPrecision(int precision) {
			this.precision = precision;
		}

		public @Nullable Duration getMemberTtl() {
			return this.memberTtl;
		}

		public void setMemberTtl(@Nullable Duration memberTtl) {
			this.memberTtl = memberTtl;
		}

		public double getMaxRadiusMeters() {
			return this.maxRadiusMeters;
		}

		public void setMaxRadiusMeters(double maxRadiusMeters) {
			this.maxRadiusMeters = maxRadiusMeters;
		}

		public int getMaxLimit() {
			return this.maxLimit;
		}

		public void setMaxLimit(int maxLimit) {
			this.maxLimit = maxLimit;
		}

		public int getSweepBatch() {
			return this.sweepBatch;
		}

		public void setSweepBatch(int sweepBatch) {
			this.sweepBatch = sweepBatch;
		}

	}

}
