package io.rediskit.autoconfigure.lock;

import java.lang.reflect.Method;

import io.rediskit.autoconfigure.support.AnnotationAdvisor;
import io.rediskit.lock.ScheduledLock;

/**
 * Applies {@link ScheduledLockInterceptor} to methods annotated with {@link ScheduledLock @ScheduledLock}, on
 * classes and on the interfaces they implement, and checks every such method of the application's beans at
 * startup ({@link ScheduledLockInterceptor#check(Method, Class)}). Ordered as {@link DistributedLockAdvisor}:
 * outside {@code @Transactional}, so that a run's transaction has committed before the lock is released.
 */
public class ScheduledLockAdvisor extends AnnotationAdvisor {

	private static final long serialVersionUID = 1L;

	private final transient ScheduledLockInterceptor interceptor;

	/**
	 * @param interceptor what runs around annotated methods
	 */
	public ScheduledLockAdvisor(ScheduledLockInterceptor interceptor) {
		super(ScheduledLock.class, interceptor, DistributedLockAdvisor.DEFAULT_ORDER);
		this.interceptor = interceptor;
	}

	@Override
	protected void check(Method method, Class<?> targetClass) {
		this.interceptor.check(method, targetClass);
	}

}
