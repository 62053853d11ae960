package io.rediskit.autoconfigure.lock;

import java.time.Clock;
import java.util.List;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.lock.LockListener;
import io.rediskit.lock.ReadWriteLockRegistry;
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
 * Auto-configures the read-write lock: a {@link ReadWriteLockRegistry} that runs its scripts with the shared
 * {@link ScriptExecutor}, tells every {@link LockListener} bean, in order (the Micrometer listener as the
 * {@code rediskit.lock.readwrite.*} meters), and runs its watchdog on the shared {@link Background}; started and
 * stopped by the context. Off with {@code redis-kit.lock.enabled=false} or
 * {@code redis-kit.lock.read-write.enabled=false}; the bean backs off when the application defines its own.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
		LockMetricsAutoConfiguration.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redis-kit.lock.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "redis-kit.lock.read-write.enabled", matchIfMissing = true)
@EnableConfigurationProperties(LockProperties.class)
public final class ReadWriteLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ReadWriteLockRegistry readWriteLockRegistry(ScriptExecutor scriptExecutor, RedisConnectionFactory connectionFactory,
			KeyNaming keyNaming, LockProperties properties, ObjectProvider<LockListener> listeners,
			Background background,
			ObjectProvider<Observations> observations) {
		ReadWriteLockRegistry registry = new ReadWriteLockRegistry(scriptExecutor, connectionFactory, keyNaming,
				LockSpecs.waiterLine(properties.getReadWrite(), "redis-kit.lock.read-write."),
				memberListeners(listeners, "readwrite"), Clock.systemUTC());
		registry.setBackground(background);
		registry.setObservations(observations.getIfAvailable(() -> Observations.NOOP));
		return registry;
	}

	/** @return the listener beans in order, the Micrometer one recording under {@code rediskit.lock.<member>} */
	static List<LockListener> memberListeners(ObjectProvider<LockListener> listeners, String member) {
		return listeners.orderedStream()
			.map((listener) -> (listener instanceof MicrometerLockListener micrometer) ? micrometer.forMember(member)
					: listener)
			.toList();
	}

}
