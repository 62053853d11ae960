package io.rediskit.autoconfigure.lock;

import io.rediskit.autoconfigure.support.EndpointValuesProperties;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code rediskitlock} actuator endpoint beyond those Actuator gives every endpoint, shaped like
 * Spring Boot's {@code management.endpoint.env.*}: whether the names of held locks, semaphores and latches show
 * (names given in code, often built from what the application received: an order id, a user). Hidden unless set
 * otherwise; hidden, a hold keeps its kind, times, fencing token and counts, a semaphore its total and held permits,
 * a latch its count, and a hold or a semaphore its group unless the group is the name itself (a lock or semaphore
 * taken by its name alone, such as {@code getLock(name)}, whose group may be data too): that group is hidden with
 * the name. Leader roles and scheduled jobs are configured names and always show.
 */
@ConfigurationProperties("management.endpoint.rediskitlock")
public class LockEndpointProperties extends EndpointValuesProperties {

}
