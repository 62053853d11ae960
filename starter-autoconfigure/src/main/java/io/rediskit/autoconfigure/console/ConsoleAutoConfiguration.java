package io.rediskit.autoconfigure.console;

import java.time.Duration;
import java.util.function.BiFunction;
import java.util.function.Function;

import io.micrometer.core.instrument.MeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.bloom.BloomProperties;
import io.rediskit.autoconfigure.bloom.RedisBloomEndpoint;
import io.rediskit.autoconfigure.cache.CacheAutoConfiguration;
import io.rediskit.autoconfigure.cache.RedisCacheEndpoint;
import io.rediskit.autoconfigure.counter.CounterProperties;
import io.rediskit.autoconfigure.counter.RedisCounterEndpoint;
import io.rediskit.autoconfigure.geo.GeoProperties;
import io.rediskit.autoconfigure.geo.RedisGeoEndpoint;
import io.rediskit.autoconfigure.id.IdAutoConfiguration;
import io.rediskit.autoconfigure.id.IdProperties;
import io.rediskit.autoconfigure.id.RedisIdEndpoint;
import io.rediskit.autoconfigure.lock.FairLockAutoConfiguration;
import io.rediskit.autoconfigure.lock.LatchAutoConfiguration;
import io.rediskit.autoconfigure.lock.LeaderElectionAutoConfiguration;
import io.rediskit.autoconfigure.lock.LockAutoConfiguration;
import io.rediskit.autoconfigure.lock.ReadWriteLockAutoConfiguration;
import io.rediskit.autoconfigure.lock.RedisLocksEndpoint;
import io.rediskit.autoconfigure.lock.RedlockAutoConfiguration;
import io.rediskit.autoconfigure.lock.ScheduledJobs;
import io.rediskit.autoconfigure.lock.SemaphoreAutoConfiguration;
import io.rediskit.autoconfigure.queue.QueueProperties;
import io.rediskit.autoconfigure.queue.RedisQueuesEndpoint;
import io.rediskit.autoconfigure.rank.RankAutoConfiguration;
import io.rediskit.autoconfigure.rank.RankProperties;
import io.rediskit.autoconfigure.rank.RedisLeaderboardEndpoint;
import io.rediskit.autoconfigure.ratelimit.RateLimitProperties;
import io.rediskit.autoconfigure.ratelimit.RedisRateLimitEndpoint;
import io.rediskit.autoconfigure.recent.RecentAutoConfiguration;
import io.rediskit.autoconfigure.recent.RecentProperties;
import io.rediskit.autoconfigure.recent.RedisRecentItemsEndpoint;
import io.rediskit.autoconfigure.support.Durations;
import io.rediskit.autoconfigure.support.PropertyChecks;
import io.rediskit.autoconfigure.support.ShownValues;
import io.rediskit.bitmap.BitmapRegistry;
import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.cache.RedisKitCacheManager;
import io.rediskit.counter.UniqueCounterRegistry;
import io.rediskit.geo.GeoIndexRegistry;
import io.rediskit.id.IdGeneratorRegistry;
import io.rediskit.instance.InstanceRegistry;
import io.rediskit.keys.BigKeyOptions;
import io.rediskit.keys.KeyTools;
import io.rediskit.latch.LatchRegistry;
import io.rediskit.leader.LeaderElections;
import io.rediskit.lock.FairLockRegistry;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.ReadWriteLockRegistry;
import io.rediskit.lock.RedlockRegistry;
import io.rediskit.lock.SemaphoreRegistry;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.RecurringJobs;
import io.rediskit.rank.LeaderboardRegistry;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.recent.RecentItemsRegistry;
import io.rediskit.support.Background;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Serves the web console at {@code redis-kit.console.path} (default {@code /redis-kit}) when
 * {@code redis-kit.console.enabled=true}, in a Spring MVC or a WebFlux application: functional routes for the page,
 * its assets (in the jar) and its JSON endpoints, a sampler of the {@code rediskit.*} meters when Micrometer is
 * present, and {@link ConsoleAccess}'s rules. Says at startup where the console is and whether it offers actions.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
		InstancesAutoConfiguration.class, CacheAutoConfiguration.class, LockAutoConfiguration.class,
		RedlockAutoConfiguration.class, LeaderElectionAutoConfiguration.class, SemaphoreAutoConfiguration.class,
		ReadWriteLockAutoConfiguration.class, FairLockAutoConfiguration.class, LatchAutoConfiguration.class,
		RankAutoConfiguration.class,
		RecentAutoConfiguration.class, IdAutoConfiguration.class }, afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnWebApplication
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty("redis-kit.console.enabled")
@EnableConfigurationProperties(ConsoleProperties.class)
public final class ConsoleAutoConfiguration {

	private static final Log logger = LogFactory.getLog(ConsoleAutoConfiguration.class);

	private static final String PREFIX = "redis-kit.console.";

	/**
	 * Fails startup, naming each property, for settings the console cannot run with.
	 * @param console the console's settings
	 * @return the settings
	 * @throws io.rediskit.autoconfigure.support.InvalidPropertiesException naming every property at fault
	 */
	static ConsoleProperties checked(ConsoleProperties console) {
		PropertyChecks checks = new PropertyChecks();
		String path = console.getPath();
		// The path becomes route patterns: a pattern character or a trailing slash would serve other routes.
		if (!path.matches("(/[A-Za-z0-9._~-]+)+")) {
			checks.reject(PREFIX + "path", path, PREFIX + "path must be one or more /segments of letters, digits, "
					+ ". _ ~ or -, such as /redis-kit, was '" + path + "'");
		}
		checkRole(checks, "role", console.getRole());
		checkRole(checks, "action-role", console.getActionRole());
		Duration interval = console.getSampleInterval();
		if (interval.compareTo(Duration.ofSeconds(1)) < 0 || interval.compareTo(Duration.ofHours(1)) > 0) {
			checks.reject(PREFIX + "sample-interval", interval,
					PREFIX + "sample-interval must be from 1s to 1h, was " + Durations.format(interval));
		}
		if (console.getSamples() < 2 || console.getSamples() > 10_000) {
			checks.reject(PREFIX + "samples", console.getSamples(),
					PREFIX + "samples must be from 2 to 10000, was " + console.getSamples());
		}
		if (console.getDeadLettersPerPage() < 1 || console.getDeadLettersPerPage() > 500) {
			checks.reject(PREFIX + "dead-letters-per-page", console.getDeadLettersPerPage(),
					PREFIX + "dead-letters-per-page must be from 1 to 500, was " + console.getDeadLettersPerPage());
		}
		Duration beat = console.getHeartbeat().getInterval();
		if (beat.compareTo(Duration.ofSeconds(1)) < 0 || beat.compareTo(Duration.ofMinutes(1)) > 0) {
			checks.reject(PREFIX + "heartbeat.interval", beat,
					PREFIX + "heartbeat.interval must be from 1s to 1m, was " + Durations.format(beat));
		}
		Duration retention = console.getHeartbeat().getRetention();
		if (retention.compareTo(beat.multipliedBy(3)) < 0 || retention.compareTo(Duration.ofDays(1)) > 0) {
			checks.reject(PREFIX + "heartbeat.retention", retention, PREFIX
					+ "heartbeat.retention must be from three heartbeat intervals to 1d, was " + Durations.format(retention));
		}
		checks.throwIfInvalid();
		return console;
	}

	private static void checkRole(PropertyChecks checks, String property, String role) {
		if (role.isBlank() || role.startsWith("ROLE_")) {
			checks.reject(PREFIX + property, role, PREFIX + property
					+ " must be a role name without the ROLE_ prefix, such as REDIS_KIT_VIEWER, was '" + role + "'");
		}
	}

	static ConsoleAccess access(ConsoleProperties properties, boolean security) {
		ConsoleAccess access = new ConsoleAccess(checked(properties), security);
		String where = "redis-kit console at " + properties.getPath() + ": ";
		if (security) {
			logger.info(where + "pages for role " + properties.getRole() + ", " + access.actionsNote());
		}
		else {
			logger.warn(where + "Spring Security is not on the class path, so anyone who reaches the console can read "
					+ "it; " + access.actionsNote());
		}
		return access;
	}

	@Bean
	ConsoleData redisKitConsoleData(ConsoleProperties properties, RedisConnectionFactory connectionFactory,
			ConsoleEndpoints endpoints, ObjectProvider<KeyTools> keyTools, ObjectProvider<BigKeyOptions> bigKeyOptions,
			ObjectProvider<InstanceRegistry> instances, ObjectProvider<ConsoleMetrics> metrics) {
		return new ConsoleData(checked(properties), endpoints.sources(connectionFactory, keyTools::getIfAvailable,
				bigKeyOptions::getIfAvailable, instances::getIfAvailable), metrics.getIfAvailable());
	}

	@Bean
	ConsoleEndpoints redisKitConsoleEndpoints(ObjectProvider<LockRegistry> locks,
			ObjectProvider<ScheduledJobs> scheduledJobs, ObjectProvider<RedlockRegistry> redlocks,
			ObjectProvider<SemaphoreRegistry> semaphores, ObjectProvider<FairLockRegistry> fairLocks,
			ObjectProvider<ReadWriteLockRegistry> readWriteLocks, ObjectProvider<LeaderElections> leaders,
			ObjectProvider<LatchRegistry> latches, ObjectProvider<RateLimiterRegistry> limiters, ObjectProvider<RateLimitProperties> limiterProperties,
			ObjectProvider<QueueRegistry> queues, ObjectProvider<QueueProperties> queueProperties,
			ObjectProvider<RecurringJobs> recurring, ObjectProvider<BloomFilterRegistry> bloom,
			ObjectProvider<BloomProperties> bloomProperties, ObjectProvider<UniqueCounterRegistry> counters,
			ObjectProvider<BitmapRegistry> bitmaps, ObjectProvider<CounterProperties> counterProperties,
			ObjectProvider<GeoIndexRegistry> geo, ObjectProvider<GeoProperties> geoProperties,
			ObjectProvider<RedisKitCacheManager> caches, ObjectProvider<LeaderboardRegistry> leaderboards,
			ObjectProvider<RankProperties> leaderboardProperties, ObjectProvider<RecentItemsRegistry> recentItems,
			ObjectProvider<RecentProperties> recentProperties, ObjectProvider<IdGeneratorRegistry> ids,
			ObjectProvider<IdProperties> idProperties, ObjectProvider<InstanceRegistry> instances) {
		return new ConsoleEndpoints(
				() -> ifAvailable(locks, (registry) -> RedisLocksEndpoint.ofFamily(registry, redlocks, semaphores,
						fairLocks, readWriteLocks, leaders, scheduledJobs, latches, ShownValues.never())),
				locks::getIfAvailable,
				() -> ifAvailable(limiters, limiterProperties, RedisRateLimitEndpoint::new),
				() -> ifAvailable(queues, queueProperties,
						(registry, configured) -> new RedisQueuesEndpoint(registry, configured, recurring.getIfAvailable())),
				queues::getIfAvailable,
				() -> ifAvailable(bloom, bloomProperties, RedisBloomEndpoint::new),
				() -> ifAvailable(counterProperties, (configured) -> new RedisCounterEndpoint(counters.getIfAvailable(),
						bitmaps.getIfAvailable(), configured)),
				() -> ifAvailable(geo, geoProperties, RedisGeoEndpoint::new),
				() -> ifAvailable(caches, (manager) -> new RedisCacheEndpoint(manager, instances::getIfAvailable)),
				() -> ifAvailable(leaderboards, leaderboardProperties, RedisLeaderboardEndpoint::new),
				() -> ifAvailable(recentItems, recentProperties, RedisRecentItemsEndpoint::new),
				() -> ifAvailable(ids, idProperties, RedisIdEndpoint::new), caches::getIfAvailable,
				recurring::getIfAvailable, semaphores::getIfAvailable, latches::getIfAvailable);
	}

	private static <B, E> @Nullable E ifAvailable(ObjectProvider<B> bean, Function<B, E> endpoint) {
		B available = bean.getIfAvailable();
		return (available != null) ? endpoint.apply(available) : null;
	}

	private static <R, P, E> @Nullable E ifAvailable(ObjectProvider<R> registry, ObjectProvider<P> properties,
			BiFunction<R, P, E> endpoint) {
		R available = registry.getIfAvailable();
		P configured = properties.getIfAvailable();
		return (available != null && configured != null) ? endpoint.apply(available, configured) : null;
	}

	@Bean
	ConsoleActions redisKitConsoleActions(ConsoleEndpoints endpoints, ObjectProvider<ConsoleActions.Counter> counter) {
		return new ConsoleActions(endpoints::queue, endpoints::cache, endpoints::recurring,
				counter.getIfAvailable(() -> ConsoleActions.Counter.NONE));
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = ConsoleAccess.SECURITY_CLASS)
	static class SecuredConsoleConfiguration {

		@Bean
		ConsoleAccess redisKitConsoleAccess(ConsoleProperties properties) {
			return access(properties, true);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass(ConsoleAccess.SECURITY_CLASS)
	static class UnsecuredConsoleConfiguration {

		@Bean
		ConsoleAccess redisKitConsoleAccess(ConsoleProperties properties) {
			return access(properties, false);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBean(MeterRegistry.class)
	static class ConsoleMetricsConfiguration {

		@Bean
		ConsoleMetrics redisKitConsoleMetrics(MeterRegistry meters, ConsoleProperties properties,
				Background background) {
			checked(properties);
			return new ConsoleMetrics(meters, properties.getSampleInterval(), properties.getSamples(), background);
		}

		@Bean
		ConsoleActions.Counter redisKitConsoleActionCounter(MeterRegistry meters) {
			return ConsoleActions.Counter.of(meters);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = Type.SERVLET)
	@ConditionalOnClass(org.springframework.web.servlet.function.RouterFunction.class)
	static class ServletConsoleConfiguration {

		@Bean
		org.springframework.web.servlet.function.RouterFunction<org.springframework.web.servlet.function.ServerResponse> redisKitConsoleRoutes(
				ConsoleProperties properties, ConsoleData data, ConsoleActions actions,
				ConsoleAccess access) {
			return new ConsoleMvcRoutes(properties.getPath(), data, actions, access).routes();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = Type.REACTIVE)
	@ConditionalOnClass(org.springframework.web.reactive.function.server.RouterFunction.class)
	static class ReactiveConsoleConfiguration {

		@Bean
		org.springframework.web.reactive.function.server.RouterFunction<org.springframework.web.reactive.function.server.ServerResponse> redisKitConsoleRoutes(
				ConsoleProperties properties, ConsoleData data, ConsoleActions actions,
				ConsoleAccess access) {
			return new ConsoleWebFluxRoutes(properties.getPath(), data, actions, access).routes();
		}

	}

}
