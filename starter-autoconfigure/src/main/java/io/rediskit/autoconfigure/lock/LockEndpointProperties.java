package io.rediskit.autoconfigure.lock;

import io.rediskit.autoconfigure.support.EndpointValuesProperties;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code rediskitlock} actuator endpoint beyond those Actuator gives every endpoint, shaped like
 * Spring Boot's {@code management.endpoint.env.*}: whether the names of held locks, semaphores and latches show
 * (names given in code, often built from what the application received: an order id, a user). Hidden unless set
 * otherwise; hidden, a hold keeps its group, kind, times, fencing token and counts, a semaphore its group and
 * permits, a latch its count. Leader roles and scheduled jobs are configured names and always show.
 */
@ConfigurationProperties("management.endpoint.rediskitlock")
public class LockEndpointProperties extends EndpointValuesProperties {

}
