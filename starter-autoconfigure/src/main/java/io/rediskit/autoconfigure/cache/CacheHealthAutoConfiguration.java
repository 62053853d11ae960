package io.rediskit.autoconfigure.cache;

import io.rediskit.cache.RedisKitCacheManager;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@code rediskitcache} health indicator when Spring Boot's health support is present and the
 * application uses the {@link RedisKitCacheManager}; off with {@code management.health.rediskitcache.enabled=false}.
 */
@AutoConfiguration(after = CacheAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(RedisKitCacheManager.class)
@ConditionalOnEnabledHealthIndicator("rediskitcache")
public final class CacheHealthAutoConfiguration {

	@Bean(name = "rediskitcacheHealthIndicator")
	@ConditionalOnMissingBean(name = "rediskitcacheHealthIndicator")
	CacheHealthIndicator rediskitcacheHealthIndicator(RedisKitCacheManager manager) {
		return new CacheHealthIndicator(manager);
	}

}
