package io.rediskit.autoconfigure.lock;

import java.time.Clock;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.lock.DistributedSemaphore;
import io.rediskit.lock.SemaphoreListener;
import io.rediskit.lock.SemaphoreRegistry;
import io.rediskit.support.Background;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Observations;
import io.rediskit.support.ScriptExecutor;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configures the semaphore: a {@link SemaphoreRegistry} on the shared {@link ScriptExecutor}, telling every
 * {@link SemaphoreListener} bean in order, its watchdog on the shared {@link Background}, started and stopped by the
 * context; and the advisor that applies
 * {@link DistributedSemaphore @DistributedSemaphore}. Off with {@code redis-kit.lock.enabled=false} or
 * {@code redis-kit.lock.semaphore.enabled=false}; each bean backs off when the application defines its own.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = { "redis-kit.lock.enabled", "redis-kit.lock.semaphore.enabled" },
		matchIfMissing = true)
@EnableConfigurationProperties(LockProperties.class)
public final class SemaphoreAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	SemaphoreRegistry semaphoreRegistry(ScriptExecutor scriptExecutor, RedisConnectionFactory connectionFactory,
			KeyNaming keyNaming, LockProperties properties, ObjectProvider<SemaphoreListener> listeners,
			Background background,
			ObjectProvider<Observations> observations) {
		SemaphoreRegistry registry = new SemaphoreRegistry(scriptExecutor, connectionFactory, keyNaming,
				LockSpecs.semaphore(properties.getSemaphore()), listeners.orderedStream().toList(), Clock.systemUTC());
		registry.setBackground(background);
		registry.setObservations(observations.getIfAvailable(() -> Observations.NOOP));
		return registry;
	}

	// Static and lazy about the registry: advisors are created while post-processors are being set up.
	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static DistributedSemaphoreAdvisor distributedSemaphoreAdvisor(ObjectProvider<SemaphoreRegistry> registry,
			Environment environment) {
		return new DistributedSemaphoreAdvisor(new DistributedSemaphoreInterceptor(registry, environment));
	}

}
