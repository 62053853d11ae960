package io.rediskit.autoconfigure.cache;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.bloom.BloomAutoConfiguration;
import io.rediskit.autoconfigure.bloom.BloomProperties;
import io.rediskit.autoconfigure.support.InvalidPropertiesException.Violation;
import io.rediskit.autoconfigure.support.InvalidPropertiesException;
import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.cache.CacheJsonSerializer;
import io.rediskit.cache.CacheListener;
import io.rediskit.cache.CacheSpec;
import io.rediskit.cache.RedisKitCacheManager;
import io.rediskit.support.Background;
import io.rediskit.support.ClosestName;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Observations;
import io.rediskit.support.ScriptExecutor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.cache.CacheManager;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.scheduling.TaskScheduler;

/**
 * Auto-configures the cache manager: a {@link RedisKitCacheManager} with the caches of
 * {@code redis-kit.cache.caches}, registered as the application's {@link CacheManager} only when the application
 * defines none (so {@code @Cacheable} uses it once caching is enabled with {@code @EnableCaching}). An application
 * with a cache manager of its own gets a {@link RedisKitCacheManagerFactory} to build one beside it. Values are
 * JSON through the application's {@link JsonMapper} (or a plain one), trusting the classes of
 * {@code redis-kit.cache.trusted-packages} or, when empty, of the application's packages; a bean named
 * {@code redisKitCacheValues} of type {@code RedisSerializer<Object>} replaces it. Reloads in the background (early
 * refresh, stale-while-revalidate) run on the application's {@code applicationTaskExecutor} or, where the
 * application defined its own executor instead (Spring Boot then defines none), on the only {@link Executor} bean
 * that is not a {@link TaskScheduler}; never on threads of the starter's own. With neither, a cache that reloads in
 * the background fails startup, naming its property. Caches name Bloom filters of the {@link BloomFilterRegistry}.
 * Off with {@code redis-kit.cache.enabled=false}.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
		BloomAutoConfiguration.class },
		afterName = "org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration",
		beforeName = "org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration")
@ConditionalOnClass({ CacheManager.class, JsonMapper.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redis-kit.cache.enabled", matchIfMissing = true)
@EnableConfigurationProperties(CacheProperties.class)
public final class CacheAutoConfiguration {

	private static final Log logger = LogFactory.getLog(CacheAutoConfiguration.class);

	/** The name of the value serializer bean, which an application may define instead. */
	public static final String VALUES_BEAN = "redisKitCacheValues";

	@Bean(VALUES_BEAN)
	@ConditionalOnMissingBean(name = VALUES_BEAN)
	RedisSerializer<Object> redisKitCacheValues(ObjectProvider<JsonMapper> jsonMapper, CacheProperties properties,
			BeanFactory beanFactory) {
		List<String> trusted = properties.getTrustedPackages();
		if (trusted.isEmpty() && AutoConfigurationPackages.has(beanFactory)) {
			trusted = AutoConfigurationPackages.get(beanFactory);
		}
		return new CacheJsonSerializer(jsonMapper.getIfAvailable(() -> JsonMapper.builder().build()), trusted);
	}

	@Bean
	@ConditionalOnMissingBean
	RedisKitCacheManagerFactory redisKitCacheManagerFactory(ScriptExecutor scripts, CommandExecutor commands,
			RedisConnectionFactory connectionFactory, KeyNaming keyNaming,
			@Qualifier(VALUES_BEAN) RedisSerializer<Object> values, CacheProperties properties,
			ObjectProvider<CacheListener> listeners, Background background,
			@Qualifier("applicationTaskExecutor") ObjectProvider<Executor> applicationTaskExecutor,
			ObjectProvider<Executor> executors, ObjectProvider<BloomFilterRegistry> bloomFilters,
			ObjectProvider<BloomProperties> bloomProperties, ObjectProvider<Observations> observations) {
		return () -> {
			BloomFilterRegistry filters = bloomFilters.getIfAvailable();
			BloomProperties bloom = bloomProperties.getIfAvailable();
			requireBloomFilters(properties, filters, (bloom != null) ? bloom.getFilters().keySet() : Set.of());
			Executor refresher = refresher(applicationTaskExecutor, executors);
			CacheSpecs configured = CacheSpecs.of(properties);
			CacheSpec defaults = configured.defaults();
			Map<String, CacheSpec> specs = configured.caches();
			if (refresher == null) {
				requireNoReloads("redis-kit.cache", defaults);
				specs.forEach((name, spec) -> requireNoReloads("redis-kit.cache.caches." + name, spec));
			}
			RedisKitCacheManager manager = new RedisKitCacheManager(scripts, commands, connectionFactory, keyNaming,
					values, defaults, specs, listeners.orderedStream().toList(), properties.getHeartbeat(), background,
					refresher, filters);
			manager.setObservations(observations.getIfAvailable(() -> Observations.NOOP));
			return manager;
		};
	}

	/** The application's task executor: Spring Boot's, else the application's only one that is not a scheduler. */
	private static @Nullable Executor refresher(ObjectProvider<Executor> applicationTaskExecutor,
			ObjectProvider<Executor> executors) {
		Executor boots = applicationTaskExecutor.getIfAvailable();
		if (boots != null) {
			return boots;
		}
		List<Executor> candidates = executors.orderedStream()
			.filter((executor) -> !(executor instanceof TaskScheduler))
			.toList();
		return (candidates.size() == 1) ? candidates.get(0) : null;
	}

	private static void requireNoReloads(String prefix, CacheSpec spec) {
		String reason = "reloads entries in the background, which run on the application's task executor, and the"
				+ " application has none (no 'applicationTaskExecutor' bean nor a single Executor bean): define one, or"
				+ " set 0";
		if (spec.earlyRefresh() > 0) {
			throw new InvalidConfigurationPropertyValueException(prefix + ".early-refresh", spec.earlyRefresh(),
					reason);
		}
		if (!spec.staleWhileRevalidate().isZero()) {
			throw new InvalidConfigurationPropertyValueException(prefix + ".stale-while-revalidate",
					spec.staleWhileRevalidate(), reason);
		}
	}

	/**
	 * Fails startup the way a bad value does (the property, its value, its file and line) when a cache names a
	 * Bloom filter that does not exist: the manager would only say which cache, not which property. A name one typo
	 * from a configured filter's is told that filter's.
	 */
	private static void requireBloomFilters(CacheProperties properties, @Nullable BloomFilterRegistry filters,
			Collection<String> configuredFilters) {
		List<Violation> violations = new ArrayList<>();
		checkBloomFilter("redis-kit.cache.bloom-filter", properties.getBloomFilter(), filters, configuredFilters,
				violations);
		properties.getCaches().forEach((name, cache) -> checkBloomFilter(
				"redis-kit.cache.caches." + name + ".bloom-filter", cache.getBloomFilter(), filters, configuredFilters,
				violations));
		if (!violations.isEmpty()) {
			throw new InvalidPropertiesException(violations);
		}
	}

	private static void checkBloomFilter(String property, @Nullable String filter,
			@Nullable BloomFilterRegistry filters, Collection<String> configuredFilters, List<Violation> violations) {
		if (filter == null) {
			return;
		}
		if (filters == null) {
			violations.add(new Violation(property, filter, property + " names the Bloom filter '" + filter
					+ "', but Bloom filters are off (redis-kit.bloom.enabled=false)"));
			return;
		}
		try {
			filters.get(filter);
		}
		catch (IllegalArgumentException ex) {
			violations.add(new Violation(property, filter, property + " names the Bloom filter '" + filter
					+ "', which does not exist" + ClosestName.didYouMean(filter, configuredFilters)
					+ ": configure redis-kit.bloom.filters." + filter
					+ " or create it in code before the cache manager"));
			return;
		}
		if (!filters.hasSeed(filter)) {
			// Not an error: the application may seed it itself. But a filter nothing seeds never filters.
			logger.info(property + " names the Bloom filter '" + filter + "', which has no BloomFilterSeed bean: it"
					+ " filters keys only once seeded with every key there is (BloomFilter.seed), and every key is read"
					+ " and loaded until then, and again after the filter is lost in Redis until it is seeded again."
					+ " Declare a BloomFilterSeed bean for '" + filter + "' to have it seeded by itself");
		}
	}

	@Bean
	@ConditionalOnMissingBean(CacheManager.class)
	RedisKitCacheManager cacheManager(RedisKitCacheManagerFactory factory) {
		return factory.create();
	}

	@Bean
	@ConditionalOnMissingBean
	CacheConnectionsShutdown redisKitCacheConnectionsShutdown(ObjectProvider<RedisKitCacheManager> managers) {
		return new CacheConnectionsShutdown(managers);
	}

}
