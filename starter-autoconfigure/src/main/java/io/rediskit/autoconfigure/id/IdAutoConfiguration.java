package io.rediskit.autoconfigure.id;

import java.util.function.Function;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.id.IdProperties.Generator;
import io.rediskit.autoconfigure.support.PropertyChecks;
import io.rediskit.id.IdGeneratorRegistry;
import io.rediskit.id.IdGeneratorSpec;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.ConfiguredSpecs;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Observations;

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
 * Auto-configures id generators: an {@link IdGeneratorRegistry} serving the generators of
 * {@code redis-kit.id.generators}. Off with {@code redis-kit.id.enabled=false}; backs off when the application
 * defines its own registry.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redis-kit.id.enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdProperties.class)
public final class IdAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	IdGeneratorRegistry idGeneratorRegistry(CommandExecutor commands, KeyNaming keyNaming, IdProperties properties,
			ObjectProvider<Observations> observations) {
		PropertyChecks checks = new PropertyChecks();
		Function<Generator, IdGeneratorSpec> toSpec = (generator) -> new IdGeneratorSpec(generator.getBlockSize());
		checks.entries(properties, "redis-kit.id.", "generators", "id generator", properties.getGenerators(), toSpec);
		checks.throwIfInvalid();
		IdGeneratorRegistry registry = new IdGeneratorRegistry(commands, keyNaming,
				ConfiguredSpecs.of(properties::getGenerators, toSpec));
		registry.setObservations(observations.getIfAvailable(() -> Observations.NOOP));
		return registry;
	}

}
