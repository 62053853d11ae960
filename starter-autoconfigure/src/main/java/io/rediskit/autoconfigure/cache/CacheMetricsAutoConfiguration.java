package io.rediskit.autoconfigure.cache;

import io.micrometer.core.instrument.MeterRegistry;
import io.rediskit.cache.RedisKitCacheManager;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link MicrometerCacheListener} and the near-cache gauges of {@link CacheMetrics} when the application
 * has a {@link MeterRegistry}.
 */
@AutoConfiguration(afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" },
		before = CacheAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "redis-kit.cache.enabled", matchIfMissing = true)
public final class CacheMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MicrometerCacheListener micrometerCacheListener(MeterRegistry registry) {
		return new MicrometerCacheListener(registry);
	}

	// The manager is defined after this configuration (its listeners come from here), so it is looked up when the
	// gauges are bound, not when the binder is defined.
	@Bean
	@ConditionalOnMissingBean
	CacheMetrics redisKitCacheMetrics(ObjectProvider<RedisKitCacheManager> managers) {
		return new CacheMetrics(managers);
	}

}
