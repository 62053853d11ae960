package io.rediskit.autoconfigure.recent;

import java.time.Clock;
import java.util.function.Function;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.recent.RecentProperties.ItemList;
import io.rediskit.autoconfigure.support.PropertyChecks;
import io.rediskit.recent.RecentItemsRegistry;
import io.rediskit.recent.RecentItemsSpec;
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
 * Auto-configures recent items: a {@link RecentItemsRegistry} serving the lists of
 * {@code redis-kit.recent-items.lists}, picking trending buckets by the system clock. Off with
 * {@code redis-kit.recent-items.enabled=false}; backs off when the application defines its own registry.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redis-kit.recent-items.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RecentProperties.class)
public final class RecentAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RecentItemsRegistry recentItemsRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
			RecentProperties properties, ObjectProvider<Observations> observations) {
		PropertyChecks checks = new PropertyChecks();
		Function<ItemList, RecentItemsSpec> toSpec = (list) -> new RecentItemsSpec(list.getCapacity(), list.getIdleTtl(),
				list.getTrendingPeriod(), list.getTrendingBuckets(), list.getTrendingCacheTtl());
		checks.entries(properties, "redis-kit.recent-items.", "lists", "list", properties.getLists(), toSpec);
		checks.throwIfInvalid();
		RecentItemsRegistry registry = new RecentItemsRegistry(scripts, commands, keyNaming,
				ConfiguredSpecs.of(properties::getLists, toSpec), Clock.systemUTC());
		registry.setObservations(observations.getIfAvailable(() -> Observations.NOOP));
		return registry;
	}

}
