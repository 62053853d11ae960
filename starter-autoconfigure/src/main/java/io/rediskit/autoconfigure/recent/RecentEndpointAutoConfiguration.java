package io.rediskit.autoconfigure.recent;

import io.rediskit.autoconfigure.support.ShownValues;
import io.rediskit.recent.RecentItemsRegistry;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@code rediskitrecentitems} actuator endpoint when Actuator is present and the endpoint is available
 * (exposed with {@code management.endpoints.web.exposure.include=rediskitrecentitems}),
 * showing items only as {@code management.endpoint.rediskitrecentitems.show-values} says
 * ({@link RecentItemsEndpointProperties}).
 */
@AutoConfiguration(after = RecentAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(RecentItemsRegistry.class)
@ConditionalOnAvailableEndpoint(RedisRecentItemsEndpoint.class)
@EnableConfigurationProperties(RecentItemsEndpointProperties.class)
public final class RecentEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisRecentItemsEndpoint redisRecentItemsEndpoint(RecentItemsRegistry registry, RecentProperties properties,
			RecentItemsEndpointProperties endpointProperties) {
		return new RedisRecentItemsEndpoint(registry, properties, ShownValues.of(endpointProperties));
	}

}
