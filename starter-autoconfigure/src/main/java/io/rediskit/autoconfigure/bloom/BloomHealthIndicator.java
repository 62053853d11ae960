package io.rediskit.autoconfigure.bloom;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import io.rediskit.bloom.BloomFilter;
import io.rediskit.bloom.BloomFilterInfo;
import io.rediskit.bloom.BloomFilterRegistry;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the Bloom filters ({@code rediskitbloom}): each configured or created filter's fill and estimated
 * false-positive rate in the details, and a warning naming the filters past their expected insertions. Such a
 * filter still works, at a higher false-positive rate, so the status is UP unless
 * {@code redis-kit.bloom.health.over-capacity-status} says otherwise. The detail {@code notComplete} names the filters
 * that are not complete (never seeded, or lost in Redis since): they work, but their "never seen" is not trusted, so
 * the loaders they guard run; the status stays as it is. DOWN when Redis cannot answer.
 */
public class BloomHealthIndicator extends AbstractHealthIndicator {

	private final BloomFilterRegistry filters;

	private final BloomProperties properties;

	/**
	 * @param filters the registry
	 * @param properties the configured filters and the over-capacity status
	 */
	public BloomHealthIndicator(BloomFilterRegistry filters, BloomProperties properties) {
		super("Bloom filter health check failed");
		this.filters = filters;
		this.properties = properties;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		Set<String> names = new TreeSet<>(this.properties.getFilters().keySet());
		names.addAll(this.filters.names());
		List<String> overCapacity = new ArrayList<>();
		List<String> notComplete = new ArrayList<>();
		for (String name : names) {
			BloomFilter filter = this.filters.get(name);
			BloomFilterInfo info = filter.info();
			builder.withDetail(name, info);
			if (info.overCapacity()) {
				overCapacity.add(name);
			}
			if (!filter.isComplete()) {
				notComplete.add(name);
			}
		}
		if (!notComplete.isEmpty()) {
			builder.withDetail("notComplete", notComplete);
		}
		if (overCapacity.isEmpty()) {
			builder.up();
			return;
		}
		builder.status(new Status(this.properties.getHealth().getOverCapacityStatus()))
			.withDetail("warning", "Bloom filters past their expected insertions, with false-positive rates above the"
					+ " configured ones: " + overCapacity);
	}

}
