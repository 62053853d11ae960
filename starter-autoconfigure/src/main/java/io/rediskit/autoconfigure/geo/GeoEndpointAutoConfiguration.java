package io.rediskit.autoconfigure.geo;

import io.rediskit.geo.GeoIndexRegistry;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@code rediskitgeo} actuator endpoint when Actuator is present and the endpoint is available
 * (exposed with {@code management.endpoints.web.exposure.include=rediskitgeo}).
 */
@AutoConfiguration(after = GeoAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(GeoIndexRegistry.class)
@ConditionalOnAvailableEndpoint(RedisGeoEndpoint.class)
public final class GeoEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisGeoEndpoint redisGeoEndpoint(GeoIndexRegistry registry, GeoProperties properties) {
		return new RedisGeoEndpoint(registry, properties);
	}

}
