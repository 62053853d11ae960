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
 * Registers the {@code rediskitbloom} health indicator when Spring Boot's health support is present; off with
 * {@code management.health.rediskitbloom.enabled=false}.
 */
@AutoConfiguration(after = BloomAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(BloomFilterRegistry.class)
@ConditionalOnEnabledHealthIndicator("rediskitbloom")
public final class BloomHealthAutoConfiguration {

	@Bean(name = "rediskitbloomHealthIndicator")
	@ConditionalOnMissingBean(name = "rediskitbloomHealthIndicator")
	BloomHealthIndicator rediskitbloomHealthIndicator(BloomFilterRegistry filters, BloomProperties properties) {
		return new BloomHealthIndicator(filters, properties);
	}

}
