package io.rediskit.autoconfigure.cache;

import io.rediskit.cache.RedisKitCacheManager;
import io.rediskit.instance.InstanceRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@code rediskitcache} actuator endpoint when Actuator is present, the application uses the
 * {@link RedisKitCacheManager}, and the endpoint is available (exposed with
 * {@code management.endpoints.web.exposure.include=rediskitcache}). Its actions also take the caches other live
 * instances use when this instance keeps a heartbeat ({@code redis-kit.console.enabled}).
 */
@AutoConfiguration(after = CacheAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(RedisKitCacheManager.class)
@ConditionalOnAvailableEndpoint(RedisCacheEndpoint.class)
public final class CacheEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisCacheEndpoint redisCacheEndpoint(RedisKitCacheManager manager, ObjectProvider<InstanceRegistry> instances) {
		return new RedisCacheEndpoint(manager, instances::getIfAvailable);
	}

}
