package io.rediskit.autoconfigure.ratelimit;

import io.rediskit.ratelimit.RateLimiterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.server.WebFilter;

/**
 * Rate limits for routes, from {@code redis-kit.rate-limit.web.rules}: a servlet filter in Spring MVC
 * applications ({@link RateLimitRuleFilter}), a {@link WebFilter} in WebFlux ones
 * ({@link ReactiveRateLimitRuleFilter}), ordered by {@code redis-kit.rate-limit.web.order}. The servlet filter also
 * carries the success headers of {@code @RateLimited} controller methods
 * ({@code redis-kit.rate-limit.web.headers.on-success}). Off with {@code redis-kit.rate-limit.enabled=false}.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnWebApplication
@ConditionalOnBean(RateLimiterRegistry.class)
@ConditionalOnBooleanProperty(name = "redis-kit.rate-limit.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
@Import({ RateLimitRulesAutoConfiguration.Servlet.class, RateLimitRulesAutoConfiguration.Reactive.class })
public final class RateLimitRulesAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitRules redisKitRateLimitRules(RateLimitProperties properties,
			ObjectProvider<RateLimiterRegistry> registry) {
		RateLimitProperties.Web web = properties.getWeb();
		return new RateLimitRules(RateLimitRule.of(web.getRules()), registry, properties.getLimiters().keySet(),
				properties.isCheckNames(), web.getHeaders().isEnabled(), web.getHeaders().isOnSuccess());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = Type.SERVLET)
	@ConditionalOnClass({ OncePerRequestFilter.class, FilterRegistrationBean.class })
	static class Servlet {

		@Bean
		@ConditionalOnMissingBean(name = "redisKitRateLimitRuleFilter")
		FilterRegistrationBean<RateLimitRuleFilter> redisKitRateLimitRuleFilter(RateLimitRules rules,
				RateLimitProperties properties) {
			FilterRegistrationBean<RateLimitRuleFilter> registration = new FilterRegistrationBean<>(
					new RateLimitRuleFilter(rules));
			registration.setOrder(properties.getWeb().getOrder());
			return registration;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = Type.REACTIVE)
	@ConditionalOnClass(WebFilter.class)
	static class Reactive {

		@Bean
		@ConditionalOnMissingBean
		ReactiveRateLimitRuleFilter redisKitReactiveRateLimitRuleFilter(RateLimitRules rules,
				RateLimitProperties properties, RedisConnectionFactory connectionFactory) {
			return new ReactiveRateLimitRuleFilter(rules, properties.getWeb().getOrder(), connectionFactory);
		}

	}

}
