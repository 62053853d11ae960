package io.rediskit.autoconfigure.lock;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ProblemDetail;

/**
 * Maps {@link io.rediskit.lock.LockNotAcquiredException} to HTTP 409, or 503 when Redis could not be reached, in
 * Spring MVC and WebFlux applications; off with {@code redis-kit.lock.web.enabled=false}.
 */
@AutoConfiguration(after = LockAutoConfiguration.class)
@ConditionalOnWebApplication
@ConditionalOnClass(ProblemDetail.class)
@ConditionalOnBooleanProperty(name = { "redis-kit.lock.enabled", "redis-kit.lock.web.enabled" }, matchIfMissing = true)
@EnableConfigurationProperties(LockProperties.class)
public final class LockWebAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockExceptionHandler redisKitLockExceptionHandler() {
		return new LockExceptionHandler();
	}

}
