package io.rediskit.autoconfigure;

import java.time.Duration;
import java.util.concurrent.Executor;

import io.micrometer.observation.ObservationRegistry;
import io.rediskit.autoconfigure.support.Durations;
import io.rediskit.autoconfigure.support.PropertyChecks;
import io.rediskit.support.Background;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisAvailability;
import io.rediskit.support.RedisAvailabilityListener;
import io.rediskit.support.RedisKitObservationConvention;
import io.rediskit.support.ScriptExecutor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.scheduling.TaskScheduler;

/**
 * What every redis-kit area shares: the {@code redis-kit} properties, the {@link KeyNaming} bean and the
 * {@link ScriptExecutor} and {@link CommandExecutor} every primitive runs its scripts and commands with (on the
 * application's Lettuce connection), both behind the {@link RedisAvailability} gate unless
 * {@code redis-kit.outage.enabled=false}: after a call finds Redis unavailable, calls are refused at once until
 * Redis answers a {@code PING}, and every {@link RedisAvailabilityListener} bean hears of it.
 * <p>
 * <b>Threads.</b> One {@link Background} bean carries the background work of every area (watchdogs, pollers,
 * heartbeats, timers, the {@code PING}, opening pub/sub connections): its scheduler is the application's
 * {@link TaskScheduler} when there is exactly one (Spring Boot defines {@code taskScheduler} with
 * {@code @EnableScheduling}), else one daemon thread of its own; its executor for blocking work is the application's
 * {@code applicationTaskExecutor} (virtual threads with {@code spring.threads.virtual.enabled=true}), else a thread
 * per task. Every area's bean depends on it, so Spring stops and destroys them first, then it, then the
 * application's threads: one shutdown order.
 * <p>
 * <b>Observations.</b> One {@link Observations} bean carries the application's {@link ObservationRegistry} (Spring
 * Boot's, with Micrometer Tracing's handlers when it is on the class path) and its
 * {@link RedisKitObservationConvention} bean, if any, to every area; without a registry it is
 * {@link Observations#NOOP}, which costs the primitives nothing.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnClass(RedisConnectionFactory.class)
@EnableConfigurationProperties(RedisKitProperties.class)
public final class RedisKitAutoConfiguration {

	private static final Log logger = LogFactory.getLog(RedisKitAutoConfiguration.class);

	/** Checks, once every bean exists, that no property under {@code redis-kit} misses every group. */
	@Bean
	static SmartInitializingSingleton redisKitPropertyNamesCheck(Environment environment) {
		return () -> RedisKitPropertyNames.check(environment);
	}

	/** Checks, once every bean exists, that no duration under {@code redis-kit} was written without a unit. */
	@Bean
	static SmartInitializingSingleton redisKitDurationUnitsCheck(ApplicationContext context) {
		return () -> RedisKitDurationUnits.check(context);
	}

	/** Checks, once every bean exists, that no area switched off ignores what the application relies on. */
	@Bean
	static SmartInitializingSingleton redisKitSwitchedOffAreasCheck(Environment environment,
			ListableBeanFactory beanFactory) {
		return new SwitchedOffAreas(environment, beanFactory);
	}

	@Bean
	@ConditionalOnMissingBean
	Observations redisKitObservations(ObjectProvider<ObservationRegistry> registry,
			ObjectProvider<RedisKitObservationConvention> convention) {
		return Observations.of(registry.getIfUnique(() -> ObservationRegistry.NOOP), convention.getIfUnique());
	}

	@Bean
	@ConditionalOnMissingBean
	Background redisKitBackground(ObjectProvider<TaskScheduler> taskScheduler,
			@Qualifier("applicationTaskExecutor") ObjectProvider<Executor> applicationTaskExecutor) {
		return Background.of(taskScheduler.getIfUnique(), applicationTaskExecutor.getIfAvailable());
	}

	@Bean
	@ConditionalOnMissingBean
	KeyNaming redisKitKeyNaming(RedisKitProperties properties) {
		String prefix = properties.getKeyPrefix();
		PropertyChecks checks = new PropertyChecks();
		if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
			checks.reject("redis-kit.key-prefix", prefix,
					"redis-kit.key-prefix must not contain '{' or '}': they would move keys to other hash slots");
		}
		checks.throwIfInvalid();
		return new KeyNaming(prefix);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RedisConnectionFactory.class)
	@ConditionalOnBooleanProperty(name = "redis-kit.outage.enabled", matchIfMissing = true)
	RedisAvailability redisKitAvailability(RedisConnectionFactory connectionFactory, RedisKitProperties properties,
			Background background, ObjectProvider<RedisAvailabilityListener> listeners) {
		Duration probeInterval = properties.getOutage().getProbeInterval();
		PropertyChecks checks = new PropertyChecks();
		if (probeInterval.isNegative() || probeInterval.isZero()
				|| probeInterval.compareTo(RedisAvailability.MAX_PROBE_INTERVAL) > 0) {
			checks.reject("redis-kit.outage.probe-interval", probeInterval, "redis-kit.outage.probe-interval must be"
					+ " from 1ms to " + Durations.format(RedisAvailability.MAX_PROBE_INTERVAL) + " (calls resume about"
					+ " one interval after Redis does), was " + Durations.format(probeInterval));
		}
		checks.throwIfInvalid();
		return RedisAvailability.of(connectionFactory, probeInterval, background,
				listeners.orderedStream().toList());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RedisConnectionFactory.class)
	ScriptExecutor redisKitScriptExecutor(RedisConnectionFactory connectionFactory,
			ObjectProvider<RedisAvailability> availability) {
		ScriptExecutor executor = ScriptExecutor.of(connectionFactory);
		if (!executor.isNative()) {
			logger.info("redis-kit runs its scripts on a connection borrowed per call from "
					+ connectionFactory.getClass().getSimpleName() + ", and its async methods complete on the calling"
					+ " thread: Lettuce with a shared native connection (Spring Boot's default) is faster");
		}
		RedisAvailability gate = availability.getIfAvailable();
		return (gate != null) ? gate.guard(executor) : executor;
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RedisConnectionFactory.class)
	CommandExecutor redisKitCommandExecutor(RedisConnectionFactory connectionFactory,
			ObjectProvider<RedisAvailability> availability) {
		CommandExecutor executor = CommandExecutor.of(connectionFactory);
		RedisAvailability gate = availability.getIfAvailable();
		return (gate != null) ? gate.guard(executor) : executor;
	}

}
