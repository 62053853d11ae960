package io.rediskit.autoconfigure.outage;

import io.micrometer.core.instrument.MeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link MicrometerRedisAvailabilityListener} when the application has a {@link MeterRegistry} and
 * {@code redis-kit.outage.enabled} is on.
 */
@AutoConfiguration(afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" },
		before = RedisKitAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "redis-kit.outage.enabled", matchIfMissing = true)
public final class OutageMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MicrometerRedisAvailabilityListener micrometerRedisAvailabilityListener(MeterRegistry registry) {
		return new MicrometerRedisAvailabilityListener(registry);
	}

}
