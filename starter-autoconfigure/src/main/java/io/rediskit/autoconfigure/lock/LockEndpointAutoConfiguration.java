package io.rediskit.autoconfigure.lock;

import io.rediskit.autoconfigure.support.ShownValues;
import io.rediskit.latch.LatchRegistry;
import io.rediskit.leader.LeaderElections;
import io.rediskit.lock.FairLockRegistry;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.ReadWriteLockRegistry;
import io.rediskit.lock.RedlockRegistry;
import io.rediskit.lock.SemaphoreRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Registers the {@code rediskitlock} actuator endpoint when Actuator is present and the endpoint is available
 * (exposed with {@code management.endpoints.web.exposure.include=rediskitlock}). Every member of the lock family
 * the application has is included the same way, under its kind ({@code single}, {@code redlock},
 * {@code semaphore}, {@code fair}, {@code readwrite}), and so are the leader elections, the scheduled jobs
 * ({@link ScheduledJobs}), the semaphores with their permits and the latches with their counts; each registry is looked
 * up when the endpoint is read, so none is created early. Names given in code (of held locks, semaphores and
 * latches) show only as {@code management.endpoint.rediskitlock.show-values} says ({@link LockEndpointProperties}).
 */
@AutoConfiguration(after = { LockAutoConfiguration.class, RedlockAutoConfiguration.class,
		LeaderElectionAutoConfiguration.class, SemaphoreAutoConfiguration.class, ReadWriteLockAutoConfiguration.class,
		FairLockAutoConfiguration.class, LatchAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(LockRegistry.class)
@ConditionalOnAvailableEndpoint(RedisLocksEndpoint.class)
@EnableConfigurationProperties(LockEndpointProperties.class)
public final class LockEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisLocksEndpoint redisLocksEndpoint(LockRegistry lockRegistry, ObjectProvider<RedlockRegistry> redlocks,
			ObjectProvider<SemaphoreRegistry> semaphores, ObjectProvider<FairLockRegistry> fairLocks,
			ObjectProvider<ReadWriteLockRegistry> readWriteLocks, ObjectProvider<LeaderElections> leaderElections,
			ObjectProvider<ScheduledJobs> scheduledJobs, ObjectProvider<LatchRegistry> latches,
			LockEndpointProperties endpointProperties) {
		return RedisLocksEndpoint.ofFamily(lockRegistry, redlocks, semaphores, fairLocks, readWriteLocks,
				leaderElections, scheduledJobs, latches, ShownValues.of(endpointProperties));
	}

}
