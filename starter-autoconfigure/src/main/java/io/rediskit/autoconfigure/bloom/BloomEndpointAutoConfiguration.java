package io.rediskit.autoconfigure.bloom;

import io.rediskit.bloom.BloomFilterRegistry;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@code rediskitbloom} actuator endpoint when Actuator is present and the endpoint is available
 * (exposed with {@code management.endpoints.web.exposure.include=rediskitbloom}).
 */
@AutoConfiguration(after = BloomAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(BloomFilterRegistry.class)
@ConditionalOnAvailableEndpoint(RedisBloomEndpoint.class)
public final class BloomEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisBloomEndpoint redisBloomEndpoint(BloomFilterRegistry filters, BloomProperties properties) {
		return new RedisBloomEndpoint(filters, properties);
	}

}
