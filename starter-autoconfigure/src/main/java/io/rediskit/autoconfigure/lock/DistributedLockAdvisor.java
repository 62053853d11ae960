package io.rediskit.autoconfigure.lock;

import java.lang.reflect.Method;

import io.rediskit.autoconfigure.support.AnnotationAdvisor;
import io.rediskit.lock.DistributedLock;

import org.springframework.core.Ordered;

/**
 * Applies {@link DistributedLockInterceptor} to methods annotated with {@link DistributedLock}, on classes
 * and on the interfaces they implement. Picked up by Spring Boot's auto-proxy creator as an infrastructure
 * advisor; checks every annotated method of the application's beans at startup
 * ({@link DistributedLockInterceptor#check(Method, Class)}). Ordered {@link #DEFAULT_ORDER}, outside {@code @Transactional} (whose advisor is ordered last by
 * default), so that the lock is released only after the transaction has committed.
 */
public class DistributedLockAdvisor extends AnnotationAdvisor {

	/** Order of the advisor unless set otherwise: just before the lowest precedence. */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	private static final long serialVersionUID = 1L;

	private final transient DistributedLockInterceptor interceptor;

	/**
	 * @param interceptor what runs around annotated methods
	 */
	public DistributedLockAdvisor(DistributedLockInterceptor interceptor) {
		super(DistributedLock.class, interceptor, DEFAULT_ORDER);
		this.interceptor = interceptor;
	}

	@Override
	protected void check(Method method, Class<?> targetClass) {
		this.interceptor.check(method, targetClass);
	}

}
