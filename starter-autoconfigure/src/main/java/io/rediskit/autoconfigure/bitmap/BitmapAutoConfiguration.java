package io.rediskit.autoconfigure.bitmap;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.counter.CounterProperties;
import io.rediskit.autoconfigure.counter.CounterProperties.Activity;
import io.rediskit.autoconfigure.counter.CounterProperties.Calendar;
import io.rediskit.bitmap.BitmapListener;
import io.rediskit.bitmap.BitmapRegistry;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
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
 * Auto-configures bitmaps: a {@link BitmapRegistry} serving the check-in calendars of
 * {@code redis-kit.counter.calendars} and the daily activities of {@code redis-kit.counter.activities} (packed
 * counters are created in code). Off with
 * {@code redis-kit.counter.enabled=false}; backs off when the application defines its own registry.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redis-kit.counter.enabled", matchIfMissing = true)
@EnableConfigurationProperties(CounterProperties.class)
public final class BitmapAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	BitmapRegistry bitmapRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
			CounterProperties properties, ObjectProvider<BitmapListener> listeners) {
		return new BitmapRegistry(scripts, commands, keyNaming, listeners.orderedStream().toList(), (name) -> {
			Calendar calendar = properties.getCalendars().get(name);
			return (calendar != null) ? calendar.toSpec() : null;
		}, (name) -> {
			Activity activity = properties.getActivities().get(name);
			return (activity != null) ? activity.toSpec() : null;
		});
	}

}
