package io.rediskit.autoconfigure.bloom;

import io.rediskit.bloom.BloomFilterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@code redisbloom} health indicator when Spring Boot's health support is present; off with
 * {@code management.health.redisbloom.enabled=false}.
 */
@AutoConfiguration(after = BloomAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(BloomFilterRegistry.class)
@ConditionalOnEnabledHealthIndicator("redisbloom")
public final class BloomHealthAutoConfiguration {

	@Bean(name = "redisbloomHealthIndicator")
	@ConditionalOnMissingBean(name = "redisbloomHealthIndicator")
	BloomHealthIndicator redisbloomHealthIndicator(BloomFilterRegistry filters, BloomProperties properties) {
		return new BloomHealthIndicator(filters, properties);
	}

}
