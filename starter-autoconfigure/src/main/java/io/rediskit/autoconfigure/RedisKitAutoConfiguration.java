package io.rediskit.autoconfigure;

import io.rediskit.support.KeyNaming;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * What every redis-kit area shares: the {@code redis-kit} properties and the {@link KeyNaming} bean.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnClass(RedisConnectionFactory.class)
@EnableConfigurationProperties(RedisKitProperties.class)
public final class RedisKitAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	KeyNaming redisKitKeyNaming(RedisKitProperties properties) {
		return new KeyNaming(properties.getKeyPrefix());
	}

}
