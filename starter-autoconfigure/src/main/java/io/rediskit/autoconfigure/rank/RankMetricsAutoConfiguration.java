package io.rediskit.autoconfigure.rank;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link MicrometerLeaderboardListener} when the application has a {@link MeterRegistry}.
 */
@AutoConfiguration(afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" },
		before = RankAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "redis-kit.leaderboard.enabled", matchIfMissing = true)
public final class RankMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MicrometerLeaderboardListener micrometerLeaderboardListener(MeterRegistry registry) {
		return new MicrometerLeaderboardListener(registry);
	}

}
