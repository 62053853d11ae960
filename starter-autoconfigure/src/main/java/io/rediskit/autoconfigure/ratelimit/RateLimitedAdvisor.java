package io.rediskit.autoconfigure.ratelimit;

import java.lang.reflect.Method;

import io.rediskit.autoconfigure.lock.DistributedLockAdvisor;
import io.rediskit.autoconfigure.support.AnnotationAdvisor;
import io.rediskit.ratelimit.RateLimited;

/**
 * Applies {@link RateLimitedInterceptor} to methods annotated with {@link RateLimited}, on classes and on the
 * interfaces they implement. Picked up by Spring Boot's auto-proxy creator as an infrastructure advisor, and
 * checks every annotated method of the application's beans at startup
 * ({@link RateLimitedInterceptor#check(Method, Class)}).
 * <p>
 * Ordered {@link #DEFAULT_ORDER}, outermost of redis-kit's advisors and outside {@code @Transactional} (whose
 * advisor is ordered last by default): a call is counted before it waits for a
 * {@link io.rediskit.lock.DistributedLock @DistributedLock} or opens a transaction, so a rejected call costs
 * neither, and the fallback of a rejected call runs outside both.
 */
public class RateLimitedAdvisor extends AnnotationAdvisor {

	/**
	 * Order of the advisor unless set otherwise: before (outside) {@link DistributedLockAdvisor#DEFAULT_ORDER},
	 * which is before the lowest precedence of {@code @Transactional}.
	 */
	public static final int DEFAULT_ORDER = DistributedLockAdvisor.DEFAULT_ORDER - 100;

	private static final long serialVersionUID = 1L;

	private final transient RateLimitedInterceptor interceptor;

	/**
	 * @param interceptor what runs around annotated methods
	 */
	public RateLimitedAdvisor(RateLimitedInterceptor interceptor) {
		super(RateLimited.class, interceptor, DEFAULT_ORDER);
		this.interceptor = interceptor;
	}

	@Override
	protected void check(Method method, Class<?> targetClass) {
		this.interceptor.check(method, targetClass);
	}

}
