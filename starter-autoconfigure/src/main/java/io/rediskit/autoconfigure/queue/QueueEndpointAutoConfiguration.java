package io.rediskit.autoconfigure.queue;

import io.rediskit.autoconfigure.support.ShownValues;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.RecurringJobs;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@code rediskitqueue} actuator endpoint when Actuator is present and the endpoint is available
 * (exposed with {@code management.endpoints.web.exposure.include=rediskitqueue}), showing dead letters' payloads and
 * headers only as {@code management.endpoint.rediskitqueue.show-values} says ({@link QueueEndpointProperties}).
 */
@AutoConfiguration(after = QueueAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(QueueRegistry.class)
@ConditionalOnAvailableEndpoint(RedisQueuesEndpoint.class)
@EnableConfigurationProperties(QueueEndpointProperties.class)
public final class QueueEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisQueuesEndpoint redisQueuesEndpoint(QueueRegistry registry, QueueProperties properties,
			ObjectProvider<RecurringJobs> recurringJobs, QueueEndpointProperties endpointProperties) {
		return new RedisQueuesEndpoint(registry, properties, recurringJobs.getIfAvailable(),
				ShownValues.of(endpointProperties));
	}

}
