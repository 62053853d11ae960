package io.rediskit.autoconfigure.lock;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.latch.LatchListener;
import io.rediskit.latch.LatchRegistry;
import io.rediskit.support.Background;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Observations;
import io.rediskit.support.ScriptExecutor;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configures count-down latches: a {@link LatchRegistry} on the shared {@link ScriptExecutor}, telling every
 * {@link LatchListener} bean in order, its timers and subscriptions on the shared {@link Background}, started and
 * stopped by the context. Off with {@code redis-kit.lock.enabled=false} or
 * {@code redis-kit.lock.latch.enabled=false}; backs off when the application defines its own registry.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = { "redis-kit.lock.enabled", "redis-kit.lock.latch.enabled" },
		matchIfMissing = true)
@EnableConfigurationProperties(LockProperties.class)
public final class LatchAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LatchRegistry latchRegistry(ScriptExecutor scriptExecutor, RedisConnectionFactory connectionFactory,
			KeyNaming keyNaming, LockProperties properties, ObjectProvider<LatchListener> listeners,
			Background background, ObjectProvider<Observations> observations) {
		LatchRegistry registry = new LatchRegistry(scriptExecutor, connectionFactory, keyNaming,
				LockSpecs.latch(properties.getLatch()), listeners.orderedStream().toList());
		registry.setBackground(background);
		registry.setObservations(observations.getIfAvailable(() -> Observations.NOOP));
		return registry;
	}

}
