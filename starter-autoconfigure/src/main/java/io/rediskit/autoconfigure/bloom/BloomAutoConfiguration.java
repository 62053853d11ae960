package io.rediskit.autoconfigure.bloom;

import java.util.List;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.bloom.BloomProperties.Filter;
import io.rediskit.autoconfigure.bloom.BloomProperties.Growth;
import io.rediskit.autoconfigure.support.Durations;
import io.rediskit.autoconfigure.support.PropertyChecks;
import io.rediskit.bloom.BloomFilterListener;
import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.bloom.BloomFilterSeed;
import io.rediskit.bloom.BloomFilterSpec;
import io.rediskit.bloom.BloomGrowth;
import io.rediskit.bloom.BloomMode;
import io.rediskit.lock.LockRegistry;
import io.rediskit.support.Background;
import io.rediskit.support.ClosestName;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.ConfiguredSpecs;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Observations;
import io.rediskit.support.ScriptExecutor;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configures Bloom filters: a {@link BloomFilterRegistry} serving the filters of
 * {@code redis-kit.bloom.filters} and telling every {@link BloomFilterListener} bean of each call. Off with
 * {@code redis-kit.bloom.enabled=false}; each bean backs off when the application defines its own. Unless the
 * mode is {@code bitmap} or the application has no filter yet, the server is asked at startup, without blocking
 * it, whether it offers native {@code BF.*} filters; the answer is logged. Each {@link BloomFilterSeed} bean gives its filter the source of every
 * item it must hold: the filter is seeded from it in the background at startup, and again whenever a check finds it
 * not complete, under the application's {@link LockRegistry} (when lock is on) so that one instance seeds it.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redis-kit.bloom.enabled", matchIfMissing = true)
@EnableConfigurationProperties(BloomProperties.class)
public final class BloomAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	BloomFilterRegistry bloomFilterRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
			BloomProperties properties, ObjectProvider<BloomFilterListener> listeners,
			ObjectProvider<Observations> observations, ObjectProvider<BloomFilterSeed> seeds,
			ObjectProvider<LockRegistry> locks, Background background) {
		PropertyChecks checks = new PropertyChecks();
		checks.entries(properties, "redis-kit.bloom.", "filters", "filter", properties.getFilters(),
				BloomAutoConfiguration::spec);
		checks.throwIfInvalid();
		BloomFilterRegistry registry = new BloomFilterRegistry(scripts, commands, keyNaming, properties.getMode(),
				listeners.orderedStream().toList(), ConfiguredSpecs.of(properties::getFilters,
						BloomAutoConfiguration::spec));
		registry.setObservations(observations.getIfAvailable(() -> Observations.NOOP));
		registry.setBackground(background);
		registry.setLocks(locks.getIfUnique());
		seeds.orderedStream().forEach(registry::setSeed);
		requireSupportedByTheMode(registry, properties);
		return registry;
	}

	/**
	 * Fails startup, naming each property and its origin, for a configured filter the mode cannot run (native with a
	 * growth or a ttl): the registry's rule, asked of every filter now rather than on its first call. A handle is
	 * created without a call to Redis.
	 */
	private static void requireSupportedByTheMode(BloomFilterRegistry registry, BloomProperties properties) {
		PropertyChecks checks = new PropertyChecks();
		properties.getFilters().forEach((name, filter) -> {
			try {
				registry.get(name);
			}
			catch (InvalidSpecException ex) {
				boolean growth = "growth".equals(ex.getComponent());
				String property = "redis-kit.bloom.filters." + name + "."
						+ (growth ? "growth.enabled" : PropertyChecks.propertyName(ex.getComponent()));
				checks.reject(property, growth ? "true" : filter.getTtl(), property + ": " + ex.getComponent() + " "
						+ Durations.inText(ex.getReason()) + " (redis-kit.bloom.mode is "
						+ PropertyChecks.text(properties.getMode()) + ")");
			}
		});
		checks.throwIfInvalid();
	}

	// The filter's spec: its constructor holds the rules.
	private static BloomFilterSpec spec(Filter filter) {
		Long expected = filter.getExpectedInsertions();
		if (expected == null) {
			throw new InvalidSpecException("expectedInsertions", "is required, such as 1000000");
		}
		Growth growth = filter.getGrowth();
		return new BloomFilterSpec(expected, filter.getFalsePositiveRate(), filter.getTtl(), growth.isEnabled()
				? new BloomGrowth(growth.getFactor(), growth.getTightening(), growth.getMaxLayers()) : null);
	}

	@Bean
	SmartInitializingSingleton bloomModeDetection(BloomFilterRegistry registry, BloomProperties properties) {
		// An outage at startup must not stop the application: detection is asked again on first use, which is also
		// when an application with no filter yet (none configured, none created in code) asks, if ever.
		return () -> {
			boolean anyFilter = !properties.getFilters().isEmpty() || !registry.names().isEmpty();
			if (anyFilter && registry.mode() != BloomMode.BITMAP) {
				registry.detectNativeFiltersAsync();
			}
		};
	}

	/**
	 * Once every bean exists (filters created in code included), fails startup for a {@link BloomFilterSeed} of a
	 * filter no one configures or creates, then starts seeding each seeded filter in the background unless it is
	 * complete. An outage or a failing source does not stop the application: the filter stays not complete (the
	 * loaders it guards run) and the next check seeds it.
	 */
	@Bean
	SmartInitializingSingleton bloomSeeding(BloomFilterRegistry registry, BloomProperties properties,
			ObjectProvider<BloomFilterSeed> seeds) {
		return () -> {
			List<BloomFilterSeed> all = seeds.orderedStream().toList();
			for (BloomFilterSeed seed : all) {
				String name = seed.filter();
				if (!properties.getFilters().containsKey(name) && !registry.names().contains(name)) {
					String suggestion = ClosestName.didYouMean(name, properties.getFilters().keySet());
					throw new IllegalStateException("A BloomFilterSeed seeds the Bloom filter '" + name + "', which does"
							+ " not exist" + suggestion + ": configure redis-kit.bloom.filters." + name
							+ ".expected-insertions, or create it in code before the application starts");
				}
			}
			for (BloomFilterSeed seed : all) {
				registry.seedAsync(seed.filter());
			}
		};
	}

}
