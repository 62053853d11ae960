package io.rediskit.autoconfigure.lock;

import io.rediskit.lock.DistributedLock;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * Applies {@link DistributedLockInterceptor} to methods annotated with {@link DistributedLock}, on classes
 * and on the interfaces they implement. Picked up by Spring Boot's auto-proxy creator as an infrastructure
 * advisor.
 */
public class DistributedLockAdvisor extends AbstractPointcutAdvisor {

	private static final long serialVersionUID = 1L;

	private final transient Pointcut pointcut = new AnnotationMatchingPointcut(null, DistributedLock.class, true);

	private final transient DistributedLockInterceptor interceptor;

	/**
	 * @param interceptor what runs around annotated methods
	 */
	public DistributedLockAdvisor(DistributedLockInterceptor interceptor) {
		this.interceptor = interceptor;
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}
