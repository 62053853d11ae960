package io.rediskit.autoconfigure.lock;

import java.time.Clock;
import java.util.List;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.lock.LockListener;
import io.rediskit.lock.RedlockRegistry;
import io.rediskit.support.Background;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Observations;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * Auto-configures Redlock when {@code redis-kit.lock.redlock.nodes} lists servers: one Lettuce connection factory
 * per node ({@link RedlockConnections}, started and stopped by the context) and a {@link RedlockRegistry} over
 * them that tells every {@link LockListener} bean, in order (the Micrometer listener as one tagged
 * {@code kind=redlock}), and runs its watchdog on the shared {@link Background}. {@code @DistributedLock(redlock = true)} locks through it. Off with {@code redis-kit.lock.enabled=false};
 * each bean backs off when the application defines its own.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
		LockMetricsAutoConfiguration.class })
@ConditionalOnBooleanProperty(name = "redis-kit.lock.enabled", matchIfMissing = true)
@Conditional(OnRedlockNodesCondition.class)
@EnableConfigurationProperties(LockProperties.class)
public final class RedlockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedlockConnections redlockConnections(LockProperties properties) {
		RedlockProperties redlock = properties.getRedlock();
		return new RedlockConnections(LockSpecs.redlockNodes(redlock), redlock.getConnectTimeout(),
				redlock.getCommandTimeout());
	}

	@Bean
	@ConditionalOnMissingBean
	RedlockRegistry redlockRegistry(RedlockConnections connections, KeyNaming keyNaming, LockProperties properties,
			ObjectProvider<LockListener> listeners, Background background,
			ObjectProvider<Observations> observations) {
		List<LockListener> redlockListeners = listeners.orderedStream()
			.map((listener) -> (listener instanceof MicrometerLockListener micrometer)
					? micrometer.forKind(MicrometerLockListener.KIND_REDLOCK) : listener)
			.toList();
		RedlockRegistry registry = new RedlockRegistry(connections.factories(), keyNaming,
				LockSpecs.redlock(properties.getRedlock()), redlockListeners, Clock.systemUTC());
		registry.setBackground(background);
		registry.setObservations(observations.getIfAvailable(() -> Observations.NOOP));
		return registry;
	}

}
