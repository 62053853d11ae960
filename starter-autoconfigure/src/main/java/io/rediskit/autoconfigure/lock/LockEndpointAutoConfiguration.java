package io.rediskit.autoconfigure.lock;

import io.rediskit.lock.LeaderElections;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.RedlockRegistry;
import io.rediskit.lock.SemaphoreRegistry;

import org.springframework.beans.factory.ObjectProvider;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@code redislocks} actuator endpoint when Actuator is present and the endpoint is available
 * (exposed with {@code management.endpoints.web.exposure.include=redislocks}).
 */
@AutoConfiguration(after = { LockAutoConfiguration.class, RedlockAutoConfiguration.class,
		LeaderElectionAutoConfiguration.class, SemaphoreAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(LockRegistry.class)
@ConditionalOnAvailableEndpoint(RedisLocksEndpoint.class)
public final class LockEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisLocksEndpoint redisLocksEndpoint(LockRegistry lockRegistry, ObjectProvider<RedlockRegistry> redlockRegistry,
			ObjectProvider<LeaderElections> leaderElections, ObjectProvider<SemaphoreRegistry> semaphoreRegistry) {
		RedisLocksEndpoint endpoint = new RedisLocksEndpoint(lockRegistry, redlockRegistry.getIfAvailable(),
				semaphoreRegistry.getIfAvailable());
		endpoint.setLeaderElections(leaderElections.getIfAvailable());
		return endpoint;
	}

}
