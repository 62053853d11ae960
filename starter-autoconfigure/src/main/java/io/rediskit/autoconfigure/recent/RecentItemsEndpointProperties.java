package io.rediskit.autoconfigure.recent;

import io.rediskit.autoconfigure.support.EndpointValuesProperties;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code rediskitrecentitems} actuator endpoint beyond those Actuator gives every endpoint, shaped
 * like Spring Boot's {@code management.endpoint.env.*}: whether trending items and a user's recent items (a
 * person's history) show. Hidden unless set otherwise; hidden, trending items keep their views and a user's items
 * their count.
 */
@ConfigurationProperties("management.endpoint.rediskitrecentitems")
public class RecentItemsEndpointProperties extends EndpointValuesProperties {

}
