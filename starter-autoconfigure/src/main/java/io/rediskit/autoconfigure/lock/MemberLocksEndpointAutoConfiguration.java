package io.rediskit.autoconfigure.lock;

import io.rediskit.lock.FairLockRegistry;
import io.rediskit.lock.ReadWriteLockRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Adds what the read-write and fair lock registries hold to the {@code redislocks} actuator endpoint, as kinds
 * {@code rwlock} and {@code fairlock}, when the endpoint is available. The registries are looked up when the
 * endpoint is read, so neither is created early.
 */
@AutoConfiguration(after = { LockEndpointAutoConfiguration.class, ReadWriteLockAutoConfiguration.class,
		FairLockAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnAvailableEndpoint(RedisLocksEndpoint.class)
public final class MemberLocksEndpointAutoConfiguration {

	@Bean
	static BeanPostProcessor memberLocksEndpointContributor(ObjectProvider<ReadWriteLockRegistry> readWriteLocks,
			ObjectProvider<FairLockRegistry> fairLocks) {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				if (bean instanceof RedisLocksEndpoint endpoint) {
					endpoint.include("rwlock", () -> readWriteLocks.stream().flatMap((r) -> r.heldLocks().stream())
						.toList());
					endpoint.include("fairlock", () -> fairLocks.stream().flatMap((r) -> r.heldLocks().stream())
						.toList());
				}
				return bean;
			}

		};
	}

}
