package io.rediskit.autoconfigure.cache;

import java.util.ArrayList;
import java.util.List;

import io.rediskit.cache.RedisKitCache;
import io.rediskit.cache.RedisKitCacheManager;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the caches ({@code rediskitcache}): UP, with each used cache that has a near cache listed as active or
 * bypassed (its invalidation subscription is down: reads go to Redis, which is slower but correct), and a warning
 * naming the bypassed ones. Redis itself is reported by the {@code redis} and {@code rediskitoutage} indicators.
 */
public class CacheHealthIndicator extends AbstractHealthIndicator {

	private final RedisKitCacheManager manager;

	/**
	 * @param manager the cache manager
	 */
	public CacheHealthIndicator(RedisKitCacheManager manager) {
		super("Cache health check failed");
		this.manager = manager;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		List<String> bypassed = new ArrayList<>();
		for (RedisKitCache cache : this.manager.caches()) {
			if (cache.spec().nearCache() != null) {
				boolean active = cache.nearCacheActive();
				String invalidation = cache.nearCacheInvalidation();
				builder.withDetail(cache.getName(), (active ? "near cache active" : "near cache bypassed")
						+ ("none".equals(invalidation) ? "" : ", invalidated by " + invalidation));
				if (!active) {
					bypassed.add(cache.getName());
				}
			}
		}
		builder.up();
		if (!bypassed.isEmpty()) {
			builder.withDetail("warning", "Near caches bypassed until their invalidations arrive again: " + bypassed);
		}
	}

}
