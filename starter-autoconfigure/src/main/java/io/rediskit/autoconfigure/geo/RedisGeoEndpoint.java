package io.rediskit.autoconfigure.geo;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.SortedSet;

import io.rediskit.autoconfigure.support.Durations;
import io.rediskit.autoconfigure.support.EntryNames;
import io.rediskit.geo.GeoIndex;
import io.rediskit.geo.GeoIndexRegistry;
import io.rediskit.geo.GeoIndexSpec;
import io.rediskit.geo.GeoSharding;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * Actuator endpoint {@code rediskitgeo}: every configured or used geo index with its sharding, member TTL, search
 * bounds and members ({@code GET /actuator/rediskitgeo}). The count is one {@code ZCARD}, or {@code HLEN} of a
 * cell-sharded index's member hash, never a scan; an index sharded by region lists its regions nowhere, so it has
 * no count. The web console reads the same descriptors.
 */
@Endpoint(id = "rediskitgeo")
public class RedisGeoEndpoint {

	private final GeoIndexRegistry registry;

	private final GeoProperties properties;

	/**
	 * @param registry the indexes
	 * @param properties the configured indexes
	 */
	public RedisGeoEndpoint(GeoIndexRegistry registry, GeoProperties properties) {
		this.registry = registry;
		this.properties = properties;
	}

	/** @return the configured indexes and those used so far, sorted */
	public SortedSet<String> names() {
		return EntryNames.of(this.registry.names(), this.properties.getIndexes());
	}

	/** @return every index, by name */
	@ReadOperation
	public IndexesDescriptor indexes() {
		return new IndexesDescriptor(names().stream().map(this::describe).toList());
	}

	private IndexDescriptor describe(String name) {
		try {
			GeoIndex index = this.registry.get(name);
			GeoIndexSpec spec = index.spec();
			Long members = (spec.sharding() != GeoSharding.REGION) ? index.size() : null;
			Duration ttl = spec.memberTtl();
			return new IndexDescriptor(name, spec.sharding().name().toLowerCase(Locale.ROOT).replace('_', '-'),
					spec.precision(), (ttl != null) ? Durations.format(ttl) : null, spec.maxRadiusMeters(),
					spec.maxLimit(), members, null);
		}
		catch (RuntimeException ex) {
			return new IndexDescriptor(name, null, null, null, null, null, null, String.valueOf(ex.getMessage()));
		}
	}

	/**
	 * The endpoint's response.
	 * @param indexes each index, by name
	 */
	public record IndexesDescriptor(List<IndexDescriptor> indexes) {
	}

	/**
	 * One geo index.
	 * @param name its name
	 * @param sharding {@code none}, {@code geohash-cell} or {@code region}
	 * @param precision the geohash bits of a cell, for cell sharding
	 * @param memberTtl how long a member is kept after its last update ({@code 1d}), {@code null} for ever
	 * @param maxRadiusMeters the widest search radius
	 * @param maxLimit the most results of a search
	 * @param members its members, {@code null} for an index sharded by region
	 * @param error why it could not be read
	 */
	public record IndexDescriptor(String name, @Nullable String sharding, @Nullable Integer precision,
			@Nullable String memberTtl, @Nullable Double maxRadiusMeters, @Nullable Integer maxLimit,
			@Nullable Long members, @Nullable String error) {
	}

}
