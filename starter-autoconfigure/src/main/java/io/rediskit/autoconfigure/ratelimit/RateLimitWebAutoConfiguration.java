package io.rediskit.autoconfigure.ratelimit;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ProblemDetail;

/**
 * Maps {@link io.rediskit.ratelimit.RateLimitExceededException} to HTTP 429 in Spring MVC and WebFlux
 * applications; off with {@code redis-kit.rate-limit.web.enabled=false}, and without the rate-limit headers
 * with {@code redis-kit.rate-limit.web.headers.enabled=false}.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnWebApplication
@ConditionalOnClass(ProblemDetail.class)
@ConditionalOnBooleanProperty(name = { "redis-kit.rate-limit.enabled", "redis-kit.rate-limit.web.enabled" },
		matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
public final class RateLimitWebAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitExceptionHandler redisKitRateLimitExceptionHandler(RateLimitProperties properties) {
		return new RateLimitExceptionHandler(properties.getWeb().getHeaders().isEnabled());
	}

}
