package io.rediskit.autoconfigure.bloom;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.bloom.BloomProperties.Filter;
import io.rediskit.autoconfigure.support.Durations;
import io.rediskit.autoconfigure.support.InvalidPropertiesException.Violation;
import io.rediskit.autoconfigure.support.InvalidPropertiesException;
import io.rediskit.autoconfigure.support.SpecErrors;
import io.rediskit.bloom.BloomFilterListener;
import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.bloom.BloomMode;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.KeyNaming;
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
 * mode is {@code bitmap}, the server is asked at startup, without blocking it, whether it offers native
 * {@code BF.*} filters; the answer is logged.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redis-kit.bloom.enabled", matchIfMissing = true)
@EnableConfigurationProperties(BloomProperties.class)
public final class BloomAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	BloomFilterRegistry bloomFilterRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
			BloomProperties properties, ObjectProvider<BloomFilterListener> listeners) {
		BloomFilterRegistry registry = new BloomFilterRegistry(scripts, commands, keyNaming, properties.getMode(),
				listeners.orderedStream().toList(), (name) -> {
					Filter filter = properties.getFilters().get(name);
					return (filter != null) ? filter.toSpec() : null;
				});
		requireSupportedByTheMode(registry, properties);
		return registry;
	}

	/**
	 * Fails startup, naming each property and its origin, for a configured filter the mode cannot run (native with a
	 * growth or a ttl): the registry's rule, asked of every filter now rather than on its first call. A handle is
	 * created without a call to Redis.
	 */
	private static void requireSupportedByTheMode(BloomFilterRegistry registry, BloomProperties properties) {
		List<Violation> violations = new ArrayList<>();
		properties.getFilters().forEach((name, filter) -> {
			try {
				registry.get(name);
			}
			catch (InvalidSpecException ex) {
				String property = "redis-kit.bloom.filters." + name + "."
						+ ("growth".equals(ex.getComponent()) ? "growth.enabled" : SpecErrors.propertyName(ex.getComponent()));
				String value = "growth".equals(ex.getComponent()) ? "true"
						: (filter.getTtl() != null) ? Durations.format(filter.getTtl()) : "";
				violations.add(new Violation(property, value, property + ": " + ex.getComponent() + " "
						+ Durations.inText(ex.getReason()) + " (redis-kit.bloom.mode is " + properties.getMode().name().toLowerCase(Locale.ROOT)
						+ ")"));
			}
		});
		if (!violations.isEmpty()) {
			throw new InvalidPropertiesException(violations);
		}
	}

	@Bean
	SmartInitializingSingleton bloomModeDetection(BloomFilterRegistry registry) {
		// An outage at startup must not stop the application: detection is asked again on first use.
		return () -> {
			if (registry.mode() != BloomMode.BITMAP) {
				registry.detectNativeFiltersAsync();
			}
		};
	}

}
