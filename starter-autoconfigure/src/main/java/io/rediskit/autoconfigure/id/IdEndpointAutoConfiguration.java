package io.rediskit.autoconfigure.id;

import io.rediskit.id.IdGeneratorRegistry;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@code rediskitid} actuator endpoint when Actuator is present and the endpoint is available
 * (exposed with {@code management.endpoints.web.exposure.include=rediskitid}).
 */
@AutoConfiguration(after = IdAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(IdGeneratorRegistry.class)
@ConditionalOnAvailableEndpoint(RedisIdEndpoint.class)
public final class IdEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisIdEndpoint redisIdEndpoint(IdGeneratorRegistry registry, IdProperties properties) {
		return new RedisIdEndpoint(registry, properties);
	}

}
