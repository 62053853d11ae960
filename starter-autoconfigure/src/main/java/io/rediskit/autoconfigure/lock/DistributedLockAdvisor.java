package io.rediskit.autoconfigure.lock;

import io.rediskit.lock.DistributedLock;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.core.Ordered;

/**
 * Applies {@link DistributedLockInterceptor} to methods annotated with {@link DistributedLock}, on classes
 * and on the interfaces they implement. Picked up by Spring Boot's auto-proxy creator as an infrastructure
 * advisor. Ordered {@link #DEFAULT_ORDER}, outside {@code @Transactional} (whose advisor is ordered last by
 * default), so that the lock is released only after the transaction has committed.
 */
public class DistributedLockAdvisor extends AbstractPointcutAdvisor {

	/** Order of the advisor unless set otherwise: just before the lowest precedence. */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	private static final long serialVersionUID = 1L;

	private final transient Pointcut pointcut = new AnnotationMatchingPointcut(null, DistributedLock.class, true);

	private final transient DistributedLockInterceptor interceptor;

	/**
	 * @param interceptor what runs around annotated methods
	 */
	public DistributedLockAdvisor(DistributedLockInterceptor interceptor) {
		this.interceptor = interceptor;
		setOrder(DEFAULT_ORDER);
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
