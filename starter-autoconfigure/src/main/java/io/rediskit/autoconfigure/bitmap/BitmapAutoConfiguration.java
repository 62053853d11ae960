package io.rediskit.autoconfigure.bitmap;

import java.util.function.Function;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.counter.CounterProperties;
import io.rediskit.autoconfigure.counter.CounterProperties.Activity;
import io.rediskit.autoconfigure.counter.CounterProperties.Calendar;
import io.rediskit.autoconfigure.support.PropertyChecks;
import io.rediskit.bitmap.BitmapRegistry;
import io.rediskit.bitmap.CheckInCalendarSpec;
import io.rediskit.bitmap.DailyActivitySpec;
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
			CounterProperties properties, ObjectProvider<Observations> observations) {
		PropertyChecks checks = new PropertyChecks();
		Function<Calendar, CheckInCalendarSpec> calendar = (settings) -> new CheckInCalendarSpec(settings.getZone(),
				settings.getRetention());
		Function<Activity, DailyActivitySpec> activity = (settings) -> new DailyActivitySpec(settings.getZone(),
				settings.getMaxUserId(), settings.getRetention());
		checks.entries(properties, "redis-kit.counter.", "calendars", "calendar", properties.getCalendars(), calendar);
		checks.entries(properties, "redis-kit.counter.", "activities", "activity", properties.getActivities(),
				activity);
		checks.throwIfInvalid();
		BitmapRegistry registry = new BitmapRegistry(scripts, commands, keyNaming,
				ConfiguredSpecs.of(properties::getCalendars, calendar),
				ConfiguredSpecs.of(properties::getActivities, activity));
		registry.setObservations(observations.getIfAvailable(() -> Observations.NOOP));
		return registry;
	}

}
