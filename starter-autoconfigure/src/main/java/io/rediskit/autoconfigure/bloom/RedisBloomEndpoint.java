package io.rediskit.autoconfigure.bloom;

import java.util.List;
import java.util.SortedSet;

import io.rediskit.autoconfigure.support.EntryNames;
import io.rediskit.bloom.BloomFilter;
import io.rediskit.bloom.BloomFilterInfo;
import io.rediskit.bloom.BloomFilterRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * Actuator endpoint {@code rediskitbloom}: every configured or created Bloom filter with its
 * {@link io.rediskit.bloom.BloomFilter#info() info} and whether it is complete, read from Redis on each request.
 */
@Endpoint(id = "rediskitbloom")
public class RedisBloomEndpoint {

	private final BloomFilterRegistry filters;

	private final BloomProperties properties;

	/**
	 * @param filters the registry
	 * @param properties the configured filters
	 */
	public RedisBloomEndpoint(BloomFilterRegistry filters, BloomProperties properties) {
		this.filters = filters;
		this.properties = properties;
	}

	/** @return the configured filters and those used so far, sorted */
	public SortedSet<String> names() {
		return EntryNames.of(this.filters.names(), this.properties.getFilters());
	}

	/** @return the filters, by name, a growing filter with its layers */
	@ReadOperation
	public FiltersDescriptor filters() {
		return new FiltersDescriptor(this.filters.mode().name(), names().stream().map(this::describe).toList());
	}

	private FilterDescriptor describe(String name) {
		try {
			BloomFilter filter = this.filters.get(name);
			return new FilterDescriptor(name, filter.info(), filter.isComplete(), this.filters.hasSeed(name), null);
		}
		catch (RuntimeException ex) {
			return new FilterDescriptor(name, null, null, this.filters.hasSeed(name), ex.getMessage());
		}
	}

	/**
	 * The endpoint's response.
	 * @param mode the configured mode
	 * @param filters the filters, by name
	 */
	public record FiltersDescriptor(String mode, List<FilterDescriptor> filters) {
	}

	/**
	 * One filter.
	 * @param name its name
	 * @param info its state, or {@code null} when it could not be read
	 * @param complete whether it is complete (seeded with every item, not lost since), so that its "never seen" is
	 * trusted; {@code null} when it could not be read
	 * @param seeded whether it has a {@link io.rediskit.bloom.BloomFilterSeed}, which seeds it again when it is found
	 * not complete
	 * @param error why it could not be read
	 */
	public record FilterDescriptor(String name, @Nullable BloomFilterInfo info, @Nullable Boolean complete,
			boolean seeded, @Nullable String error) {
	}

}
