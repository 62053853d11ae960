package io.rediskit.autoconfigure.geo;

import java.util.function.Function;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.geo.GeoProperties.Index;
import io.rediskit.autoconfigure.support.PropertyChecks;
import io.rediskit.geo.GeoIndexRegistry;
import io.rediskit.geo.GeoIndexSpec;
import io.rediskit.geo.GeoListener;
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
 * Auto-configures a {@link GeoIndexRegistry} serving the indexes of {@code redis-kit.geo.indexes} and telling
 * every {@link GeoListener} bean of each operation. Off with {@code redis-kit.geo.enabled=false}; backs off
 * when the application defines its own registry. The registry reads the properties bean on every
 * {@code get(name)}, so a refreshed configuration gives a new handle over the same keys.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redis-kit.geo.enabled", matchIfMissing = true)
@EnableConfigurationProperties(GeoProperties.class)
public final class GeoAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	GeoIndexRegistry geoIndexRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
			GeoProperties properties,
			ObjectProvider<GeoListener> listeners,
			ObjectProvider<Observations> observations) {
		PropertyChecks checks = new PropertyChecks();
		Function<Index, GeoIndexSpec> toSpec = (index) -> new GeoIndexSpec(index.getSharding(), index.getPrecision(),
				index.getMemberTtl(), index.getMaxRadiusMeters(), index.getMaxLimit(), index.getSweepBatch());
		checks.entries(properties, "redis-kit.geo.", "indexes", "geo index", properties.getIndexes(), toSpec);
		checks.throwIfInvalid();
		GeoIndexRegistry registry = new GeoIndexRegistry(scripts, commands, keyNaming, listeners.orderedStream().toList(),
				ConfiguredSpecs.of(properties::getIndexes, toSpec));
		registry.setObservations(observations.getIfAvailable(() -> Observations.NOOP));
		return registry;
	}

}
