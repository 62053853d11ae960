package io.rediskit.autoconfigure.bloom;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.bloom.BloomProperties.Filter;
import io.rediskit.bloom.BloomFilterListener;
import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.bloom.BloomMode;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configures Bloom filters: a {@link BloomFilterRegistry} serving the filters of
 * {@code redis-kit.bloom.filters} and telling every {@link BloomFilterListener} bean of each call. Off with
 * {@code redis-kit.bloom.enabled=false}; each bean backs off when the application defines its own. Unless the
 * mode is {@code bitmap}, the server is asked at startup, without blocking it, whether it offers native
 * {@code BF.*} filters; the answer is logged.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redis-kit.bloom.enabled", matchIfMissing = true)
@EnableConfigurationProperties(BloomProperties.class)
public final class BloomAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	BloomFilterRegistry bloomFilterRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
			BloomProperties properties, ObjectProvider<BloomFilterListener> listeners) {
		return new BloomFilterRegistry(scripts, commands, keyNaming, properties.getMode(),
				listeners.orderedStream().toList(), (name) -> {
					Filter filter = properties.getFilters().get(name);
					return (filter != null) ? filter.toSpec() : null;
				});
	}

	@Bean
	SmartInitializingSingleton bloomModeDetection(BloomFilterRegistry registry) {
		// An outage at startup must not stop the application: detection is asked again on first use.
		return () -> {
			if (registry.mode() != BloomMode.BITMAP) {
				registry.detectNativeFiltersAsync();
			}
		};
	}

}
