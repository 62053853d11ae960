package io.rediskit.autoconfigure.lock;

import java.time.Clock;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.lock.DistributedLock;
import io.rediskit.lock.LockListener;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.RedlockRegistry;
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
 * Auto-configures the distributed lock: a {@link LockRegistry} that runs its scripts with the shared
 * {@link ScriptExecutor}, tells every {@link LockListener} bean, in order, and runs its watchdog and subscriptions on
 * the shared {@link Background}, started and stopped by the context; and the advisors that apply {@link DistributedLock @DistributedLock} and
 * {@link io.rediskit.lock.ScheduledLock @ScheduledLock}, whose runs and skips {@link ScheduledJobs} records. Off with {@code redis-kit.lock.enabled=false}; each bean backs off
 * when the application defines its own.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redis-kit.lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(LockProperties.class)
public final class LockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockRegistry lockRegistry(ScriptExecutor scriptExecutor, RedisConnectionFactory connectionFactory,
			KeyNaming keyNaming, LockProperties properties, ObjectProvider<LockListener> listeners,
			Background background,
			ObjectProvider<Observations> observations) {
		LockRegistry registry = new LockRegistry(scriptExecutor, connectionFactory, keyNaming, LockSpecs.lock(properties),
				listeners.orderedStream().toList(), Clock.systemUTC());
		registry.setBackground(background);
		registry.setObservations(observations.getIfAvailable(() -> Observations.NOOP));
		return registry;
	}

	// Static and lazy about the factory: advisors are created while post-processors are being set up, before
	// the Redis beans should be.
	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static DistributedLockAdvisor distributedLockAdvisor(ObjectProvider<LockRegistry> lockRegistry,
			ObjectProvider<RedlockRegistry> redlockRegistry, Environment environment) {
		return new DistributedLockAdvisor(new DistributedLockInterceptor(lockRegistry, redlockRegistry, environment));
	}

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static ScheduledLockAdvisor scheduledLockAdvisor(ObjectProvider<LockRegistry> lockRegistry,
			Environment environment, ScheduledJobs scheduledJobs) {
		return new ScheduledLockAdvisor(new ScheduledLockInterceptor(lockRegistry, environment, scheduledJobs));
	}

	// Static as the advisor that feeds it; it depends on nothing, so creating it early costs nothing.
	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static ScheduledJobs scheduledJobs() {
		return new ScheduledJobs();
	}

}
