package io.rediskit.autoconfigure.queue;

import io.rediskit.queue.QueueRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link QueueHealthIndicator} ({@code rediskitqueue}) when Spring Boot's health support is present; off
 * with {@code management.health.rediskitqueue.enabled=false}.
 */
@AutoConfiguration(after = QueueAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(QueueRegistry.class)
@ConditionalOnEnabledHealthIndicator("rediskitqueue")
public final class QueueHealthAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "rediskitqueueHealthIndicator")
	QueueHealthIndicator rediskitqueueHealthIndicator(QueueRegistry registry, QueueProperties properties) {
		return new QueueHealthIndicator(registry, properties.getQueues().keySet(),
				properties.getHealth().getMaxOldestDueAge(), new Status(properties.getHealth().getLateStatus()));
	}

}
