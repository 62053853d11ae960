package io.rediskit.autoconfigure.lock;

import java.time.Clock;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.lock.FairLockRegistry;
import io.rediskit.lock.LockListener;
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
 * Auto-configures the fair lock: a {@link FairLockRegistry} that runs its scripts with the shared
 * {@link ScriptExecutor}, tells every {@link LockListener} bean, in order (the Micrometer listener as the
 * {@code rediskit.lock.fair.*} meters), and runs its watchdog on the shared {@link Background}; started and stopped
 * by the context. Off with {@code redis-kit.lock.enabled=false} or
 * {@code redis-kit.lock.fair.enabled=false}; the bean backs off when the application defines its own.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
		LockMetricsAutoConfiguration.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redis-kit.lock.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "redis-kit.lock.fair.enabled", matchIfMissing = true)
@EnableConfigurationProperties(LockProperties.class)
public final class FairLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	FairLockRegistry fairLockRegistry(ScriptExecutor scriptExecutor, RedisConnectionFactory connectionFactory,
			KeyNaming keyNaming, LockProperties properties, ObjectProvider<LockListener> listeners,
			Background background,
			ObjectProvider<Observations> observations) {
		FairLockRegistry registry = new FairLockRegistry(scriptExecutor, connectionFactory, keyNaming,
				LockSpecs.waiterLine(properties.getFair(), "redis-kit.lock.fair."),
				ReadWriteLockAutoConfiguration.memberListeners(listeners, "fair"), Clock.systemUTC());
		registry.setBackground(background);
		registry.setObservations(observations.getIfAvailable(() -> Observations.NOOP));
		return registry;
	}

}
