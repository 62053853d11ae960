package io.rediskit.autoconfigure.recent;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link MicrometerRecentItemsListener} when the application has a {@link MeterRegistry}.
 */
@AutoConfiguration(afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" },
		before = RecentAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "redis-kit.recent-items.enabled", matchIfMissing = true)
public final class RecentMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MicrometerRecentItemsListener micrometerRecentItemsListener(MeterRegistry registry) {
		return new MicrometerRecentItemsListener(registry);
	}

}
