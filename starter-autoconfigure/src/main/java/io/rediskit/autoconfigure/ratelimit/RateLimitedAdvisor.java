package io.rediskit.autoconfigure.ratelimit;

import io.rediskit.autoconfigure.lock.DistributedLockAdvisor;
import io.rediskit.ratelimit.RateLimited;
import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * Applies {@link RateLimitedInterceptor} to methods annotated with {@link RateLimited}, on classes and on the
 * interfaces they implement. Picked up by Spring Boot's auto-proxy creator as an infrastructure advisor.
 * <p>
 * Ordered {@link #DEFAULT_ORDER}, outermost of redis-kit's advisors and outside {@code @Transactional} (whose
 * advisor is ordered last by default): a call is counted before it waits for a
 * {@link io.rediskit.lock.DistributedLock @DistributedLock} or opens a transaction, so a rejected call costs
 * neither, and the fallback of a rejected call runs outside both.
 */
public class RateLimitedAdvisor extends AbstractPointcutAdvisor {

	/**
	 * Order of the advisor unless set otherwise: before (outside) {@link DistributedLockAdvisor#DEFAULT_ORDER},
	 * which is before the lowest precedence of {@code @Transactional}.
	 */
	public static final int DEFAULT_ORDER = DistributedLockAdvisor.DEFAULT_ORDER - 100;

	private static final long serialVersionUID = 1L;

	private final transient Pointcut pointcut = new AnnotationMatchingPointcut(null, RateLimited.class, true);

	private final transient RateLimitedInterceptor interceptor;

	/**
	 * @param interceptor what runs around annotated methods
	 */
	public RateLimitedAdvisor(RateLimitedInterceptor interceptor) {
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
