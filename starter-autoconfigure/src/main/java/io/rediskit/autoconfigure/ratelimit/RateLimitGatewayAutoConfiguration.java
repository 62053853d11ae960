package io.rediskit.autoconfigure.ratelimit;

import io.rediskit.ratelimit.RateLimiterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;

/**
 * Offers redis-kit's limiters to Spring Cloud Gateway: a {@link GatewayRateLimiter} bean named
 * {@code redisKitRateLimiter}, when the gateway is on the class path and enabled and rate limiting is on.
 * <p>
 * Where the gateway has another {@code RateLimiter} (its {@code RedisRateLimiter}, which it creates whenever a
 * reactive Redis template exists, as it does beside redis-kit), that one stays the default of the
 * {@code RequestRateLimiter} filter and routes choose redis-kit's with
 * {@code rate-limiter: "#{@redisKitRateLimiter}"}: this bean is then no candidate for injection by type, so
 * adding redis-kit changes no route. Where it is the only one, it is the filter's default.
 * <p>
 * A route naming a limiter that does not exist when routes load fails to load, with the closest configured
 * limiter's name in the error, unless {@code redis-kit.rate-limit.check-names=false}.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class,
		afterName = "org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration",
		beforeName = "org.springframework.cloud.gateway.config.GatewayAutoConfiguration")
@ConditionalOnClass(value = AbstractRateLimiter.class, name = "org.springframework.web.reactive.DispatcherHandler")
@ConditionalOnBooleanProperty(name = "spring.cloud.gateway.server.webflux.enabled", matchIfMissing = true)
@ConditionalOnBean(RateLimiterRegistry.class)
public final class RateLimitGatewayAutoConfiguration {

	/** The name of the bean, which routes give as {@code rate-limiter: "#{@redisKitRateLimiter}"}. */
	public static final String BEAN_NAME = "redisKitRateLimiter";

	// The two methods define the same bean, at most one of them: conditions are evaluated in declaration order.
	@Bean(BEAN_NAME)
	@ConditionalOnMissingBean(RateLimiter.class)
	GatewayRateLimiter redisKitRateLimiter(RateLimiterRegistry registry, ConfigurationService configurationService,
			ObjectProvider<RateLimitProperties> properties) {
		return gatewayRateLimiter(registry, configurationService, properties);
	}

	// The gateway's filter factory takes the one RateLimiter candidate by type: beside another, stay out of it.
	@Bean(name = BEAN_NAME, defaultCandidate = false)
	@ConditionalOnBean(RateLimiter.class)
	@ConditionalOnMissingBean(GatewayRateLimiter.class)
	GatewayRateLimiter redisKitRateLimiterBesideOthers(RateLimiterRegistry registry,
			ConfigurationService configurationService, ObjectProvider<RateLimitProperties> properties) {
		return gatewayRateLimiter(registry, configurationService, properties);
	}

	// Without the properties (a registry of the application's own, rate limiting's auto-configuration off), names
	// are checked, as by default, with nothing configured to suggest.
	private static GatewayRateLimiter gatewayRateLimiter(RateLimiterRegistry registry,
			ConfigurationService configurationService, ObjectProvider<RateLimitProperties> properties) {
		RateLimitProperties bound = properties.getIfAvailable();
		return (bound != null) ? new GatewayRateLimiter(registry, configurationService,
				() -> bound.getLimiters().keySet(), bound.isCheckNames())
				: new GatewayRateLimiter(registry, configurationService);
	}

}
