package io.rediskit.autoconfigure.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link MicrometerOperationMeters}, the observation handler that derives the meters of the
 * operation-shaped areas (calendars, Bloom filters, counters, geo indexes, id generators, leaderboards, recent
 * items) from their observations, when the application has a {@link MeterRegistry}. Spring Boot adds it to the
 * application's {@link ObservationRegistry} (with Actuator), as every {@code ObservationHandler} bean.
 */
@AutoConfiguration(afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass({ MeterRegistry.class, ObservationRegistry.class })
@ConditionalOnBean(MeterRegistry.class)
public final class OperationMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MicrometerOperationMeters micrometerOperationMeters(MeterRegistry registry) {
		return new MicrometerOperationMeters(registry);
	}

}
