package io.rediskit.autoconfigure.ratelimit;

import java.util.Collection;
import java.util.Set;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.ratelimit.RateLimitListener;
import io.rediskit.ratelimit.RateLimited;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Observations;
import io.rediskit.support.ScriptExecutor;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configures rate limiting: a {@link RateLimiterRegistry} on the application's
 * {@link RedisConnectionFactory} serving the limiters of {@code redis-kit.rate-limit.limiters} (each over the
 * group's {@code algorithm} and {@code failure-policy} where it sets none) and telling every
 * {@link RateLimitListener} bean of each decision, and the advisor that applies {@link RateLimited @RateLimited}.
 * Off with {@code redis-kit.rate-limit.enabled=false}; each bean backs off when the application defines its own.
 * The advisor checks every {@code @RateLimited} method of the application's beans at startup.
 * <p>
 * The registry reads the properties bean on every {@code get(name)}, so when a configuration refresh (such as
 * Spring Cloud's) rebinds it, the next call uses the new limit, keeping the usage already counted.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redis-kit.rate-limit.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
public final class RateLimitAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimiterRegistry rateLimiterRegistry(ScriptExecutor scripts, RedisConnectionFactory connectionFactory,
			KeyNaming keyNaming, RateLimitProperties properties, ObjectProvider<RateLimitListener> listeners,
			ObjectProvider<Observations> observations) {
		RateLimiterRegistry registry = new RateLimiterRegistry(scripts, connectionFactory, keyNaming,
				listeners.orderedStream().toList(), RateLimitSpecs.configured(properties));
		registry.setObservations(observations.getIfAvailable(() -> Observations.NOOP));
		return registry;
	}

	// Static and lazy about the registry: advisors are created while post-processors are being set up, before
	// the Redis beans should be, and before the properties beans are bound, so the one switch it needs is read
	// from the environment.
	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static RateLimitedAdvisor rateLimitedAdvisor(ObjectProvider<RateLimiterRegistry> registry,
			ObjectProvider<RateLimitProperties> properties, Environment environment) {
		boolean checkNames = Binder.get(environment)
			.bind("redis-kit.rate-limit.check-names", Boolean.class)
			.orElse(true);
		return new RateLimitedAdvisor(new RateLimitedInterceptor(registry, () -> configuredNames(properties),
				checkNames));
	}

	// Asked only when a method names an unknown limiter, once the singletons (the properties among them) exist.
	private static Collection<String> configuredNames(ObjectProvider<RateLimitProperties> properties) {
		RateLimitProperties bound = properties.getIfAvailable();
		return (bound != null) ? bound.getLimiters().keySet() : Set.of();
	}

}
