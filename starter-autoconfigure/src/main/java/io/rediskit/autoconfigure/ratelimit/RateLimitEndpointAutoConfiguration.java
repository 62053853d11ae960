package io.rediskit.autoconfigure.ratelimit;

import io.rediskit.ratelimit.RateLimiterRegistry;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@code rediskitratelimit} actuator endpoint when Actuator is present and the endpoint is available
 * (exposed with {@code management.endpoints.web.exposure.include=rediskitratelimit}).
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(RateLimiterRegistry.class)
@ConditionalOnAvailableEndpoint(RedisRateLimitEndpoint.class)
public final class RateLimitEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisRateLimitEndpoint redisRateLimitEndpoint(RateLimiterRegistry registry, RateLimitProperties properties) {
		return new RedisRateLimitEndpoint(registry, properties);
	}

}
