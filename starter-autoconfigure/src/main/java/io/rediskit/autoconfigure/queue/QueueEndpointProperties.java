package io.rediskit.autoconfigure.queue;

import io.rediskit.autoconfigure.support.EndpointValuesProperties;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code rediskitqueue} actuator endpoint beyond those Actuator gives every endpoint, shaped like
 * Spring Boot's {@code management.endpoint.env.*}: whether the dead letters it lists show their payloads and headers
 * (a message's data: personal data, tenant and user ids) and a grouped queue's groups their names. Hidden unless set
 * otherwise; hidden, a dead letter keeps the size of its payload, a group its counts.
 */
@ConfigurationProperties("management.endpoint.rediskitqueue")
public class QueueEndpointProperties extends EndpointValuesProperties {

}
