package io.rediskit.autoconfigure.rank;

import io.rediskit.autoconfigure.support.ShownValues;
import io.rediskit.rank.LeaderboardRegistry;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@code rediskitleaderboard} actuator endpoint when Actuator is present and the endpoint is available
 * (exposed with {@code management.endpoints.web.exposure.include=rediskitleaderboard}),
 * showing members' names only as {@code management.endpoint.rediskitleaderboard.show-values} says
 * ({@link LeaderboardEndpointProperties}).
 */
@AutoConfiguration(after = RankAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(LeaderboardRegistry.class)
@ConditionalOnAvailableEndpoint(RedisLeaderboardEndpoint.class)
@EnableConfigurationProperties(LeaderboardEndpointProperties.class)
public final class RankEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisLeaderboardEndpoint redisLeaderboardEndpoint(LeaderboardRegistry registry, RankProperties properties,
			LeaderboardEndpointProperties endpointProperties) {
		return new RedisLeaderboardEndpoint(registry, properties, ShownValues.of(endpointProperties));
	}

}
