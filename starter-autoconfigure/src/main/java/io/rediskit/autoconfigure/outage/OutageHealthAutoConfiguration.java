package io.rediskit.autoconfigure.outage;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.support.RedisAvailability;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link RedisAvailabilityHealthIndicator} ({@code rediskitoutage}) when Spring Boot's health
 * support is present and the {@link RedisAvailability} bean exists; off with
 * {@code management.health.rediskitoutage.enabled=false}.
 */
@AutoConfiguration(after = RedisKitAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(RedisAvailability.class)
@ConditionalOnEnabledHealthIndicator("rediskitoutage")
public final class OutageHealthAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "rediskitoutageHealthIndicator")
	RedisAvailabilityHealthIndicator rediskitoutageHealthIndicator(RedisAvailability availability) {
		return new RedisAvailabilityHealthIndicator(availability);
	}

}
