package io.rediskit.autoconfigure.counter;

import java.util.function.Function;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.counter.CounterProperties.Counter;
import io.rediskit.autoconfigure.support.PropertyChecks;
import io.rediskit.counter.UniqueCounterRegistry;
import io.rediskit.counter.UniqueCounterSpec;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.ConfiguredSpecs;
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
 * Auto-configures unique counters: a {@link UniqueCounterRegistry} serving the counters of
 * {@code redis-kit.counter.counters}. Off with {@code redis-kit.counter.enabled=false}; backs off when the
 * application defines its own registry.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redis-kit.counter.enabled", matchIfMissing = true)
@EnableConfigurationProperties(CounterProperties.class)
public final class CounterAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	UniqueCounterRegistry uniqueCounterRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
			CounterProperties properties, ObjectProvider<Observations> observations) {
		PropertyChecks checks = new PropertyChecks();
		Function<Counter, UniqueCounterSpec> toSpec = (counter) -> new UniqueCounterSpec(counter.getBucket(),
				counter.getZone(), counter.getRetention(), counter.getRangeCacheTtl());
		checks.entries(properties, "redis-kit.counter.", "counters", "counter", properties.getCounters(), toSpec);
		checks.throwIfInvalid();
		UniqueCounterRegistry registry = new UniqueCounterRegistry(scripts, commands, keyNaming,
				ConfiguredSpecs.of(properties::getCounters, toSpec));
		registry.setObservations(observations.getIfAvailable(() -> Observations.NOOP));
		return registry;
	}

}
