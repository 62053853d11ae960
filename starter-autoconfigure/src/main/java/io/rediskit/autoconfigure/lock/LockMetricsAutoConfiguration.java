package io.rediskit.autoconfigure.lock;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link MicrometerLockListener} and {@link MicrometerLockMeters} (the timers of the whole lock family,
 * from its observations) when the application has a {@link MeterRegistry}. Spring Boot adds the meters' handler to
 * the application's {@code ObservationRegistry} (with Actuator), as every {@code ObservationHandler} bean.
 */
@AutoConfiguration(afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" },
		before = LockAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "redis-kit.lock.enabled", matchIfMissing = true)
public final class LockMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MicrometerLockListener micrometerLockListener(MeterRegistry registry) {
		return new MicrometerLockListener(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	MicrometerLockMeters micrometerLockMeters(MeterRegistry registry) {
		return new MicrometerLockMeters(registry);
	}

}
