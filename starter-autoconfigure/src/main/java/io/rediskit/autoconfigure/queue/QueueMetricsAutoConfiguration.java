package io.rediskit.autoconfigure.queue;

import io.micrometer.core.instrument.MeterRegistry;
import io.rediskit.queue.QueueRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link MicrometerQueueListener} and the {@link QueueMetrics} gauges of the configured queues when
 * the application has a {@link MeterRegistry}.
 */
@AutoConfiguration(afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" },
		before = QueueAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "redis-kit.queue.enabled", matchIfMissing = true)
public final class QueueMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MicrometerQueueListener micrometerQueueListener(MeterRegistry registry) {
		return new MicrometerQueueListener(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(QueueRegistry.class)
	QueueMetrics queueMetrics(QueueRegistry registry, QueueProperties properties) {
		return new QueueMetrics(registry, properties.getQueues().keySet());
	}

}
