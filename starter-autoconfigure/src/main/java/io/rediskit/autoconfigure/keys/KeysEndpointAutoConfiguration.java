package io.rediskit.autoconfigure.keys;

import io.rediskit.keys.BigKeyOptions;
import io.rediskit.keys.KeyTools;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers the read-only {@code rediskitkeys} actuator endpoint when Actuator is present and the endpoint is
 * available: its access is none by default, so it needs {@code management.endpoint.rediskitkeys.access=read-only}
 * and exposure.
 */
@AutoConfiguration(after = KeysAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(KeyTools.class)
@ConditionalOnAvailableEndpoint(RedisKeysEndpoint.class)
public final class KeysEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisKeysEndpoint redisKeysEndpoint(KeyTools keyTools, BigKeyOptions options) {
		return new RedisKeysEndpoint(keyTools, options);
	}

}
