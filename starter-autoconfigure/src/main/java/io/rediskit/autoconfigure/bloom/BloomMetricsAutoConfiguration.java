package io.rediskit.autoconfigure.bloom;

import io.micrometer.core.instrument.MeterRegistry;
import io.rediskit.bloom.BloomFilterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link MicrometerBloomFilterListener} and the gauges of {@link BloomFilterMetrics} when the
 * application has a {@link MeterRegistry}.
 */
@AutoConfiguration(afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" },
		before = BloomAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "redis-kit.bloom.enabled", matchIfMissing = true)
public final class BloomMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MicrometerBloomFilterListener micrometerBloomFilterListener(MeterRegistry registry) {
		return new MicrometerBloomFilterListener(registry);
	}

	// The registry is defined after this configuration (its listeners come from here), so it is looked up when
	// the gauges are bound, not when the binder is defined.
	@Bean
	@ConditionalOnMissingBean
	BloomFilterMetrics bloomFilterMetrics(ObjectProvider<BloomFilterRegistry> filters,
			ObjectProvider<BloomProperties> properties) {
		return new BloomFilterMetrics(filters, properties);
	}

}
