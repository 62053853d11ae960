package io.rediskit.autoconfigure.rank;

import io.rediskit.autoconfigure.support.EndpointValuesProperties;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code rediskitleaderboard} actuator endpoint beyond those Actuator gives every endpoint, shaped
 * like Spring Boot's {@code management.endpoint.env.*}: whether the top members it lists show their names (often
 * user ids). Hidden unless set otherwise; hidden, each keeps its rank and score.
 */
@ConfigurationProperties("management.endpoint.rediskitleaderboard")
public class LeaderboardEndpointProperties extends EndpointValuesProperties {

}
