package io.rediskit.autoconfigure.lock;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link MicrometerSemaphoreListener} and {@link MicrometerLatchListener} when the application has a
 * {@link MeterRegistry}, each unless its member is switched off.
 */
@AutoConfiguration(afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" },
		before = { SemaphoreAutoConfiguration.class, LatchAutoConfiguration.class })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "redis-kit.lock.enabled", matchIfMissing = true)
public final class SemaphoreMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "redis-kit.lock.semaphore.enabled", matchIfMissing = true)
	MicrometerSemaphoreListener micrometerSemaphoreListener(MeterRegistry registry) {
		return new MicrometerSemaphoreListener(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "redis-kit.lock.latch.enabled", matchIfMissing = true)
	MicrometerLatchListener micrometerLatchListener(MeterRegistry registry) {
		return new MicrometerLatchListener(registry);
	}

}
