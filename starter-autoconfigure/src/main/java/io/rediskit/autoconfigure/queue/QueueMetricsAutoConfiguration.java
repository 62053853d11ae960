package io.rediskit.autoconfigure.queue;

import java.util.Map;
import java.util.Set;

import io.micrometer.core.instrument.MeterRegistry;
import io.rediskit.queue.QueueRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Registers {@link MicrometerQueueListener}, {@link MicrometerRecurringJobListener} and the {@link QueueMetrics} gauges of the configured queues when
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
	MicrometerRecurringJobListener micrometerRecurringJobListener(MeterRegistry registry) {
		return new MicrometerRecurringJobListener(registry);
	}

	// The registry is defined after this configuration (it takes the listener above), so it is looked up lazily.
	@Bean
	@ConditionalOnMissingBean
	QueueMetrics queueMetrics(ObjectProvider<QueueRegistry> registry, Environment environment) {
		Map<String, QueueProperties.Queue> queues = Binder.get(environment)
			.bind("redis-kit.queue.queues", Bindable.mapOf(String.class, QueueProperties.Queue.class))
			.orElse(Map.of());
		return new QueueMetrics(registry::getObject, Set.copyOf(queues.keySet()));
	}

}
