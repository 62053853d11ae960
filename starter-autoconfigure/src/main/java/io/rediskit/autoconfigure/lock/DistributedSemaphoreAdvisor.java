package io.rediskit.autoconfigure.lock;

import java.lang.reflect.Method;

import io.rediskit.autoconfigure.support.AnnotationAdvisor;
import io.rediskit.lock.DistributedSemaphore;

/**
 * Applies {@link DistributedSemaphoreInterceptor} to methods annotated with {@link DistributedSemaphore}, as
 * {@link DistributedLockAdvisor} applies the lock: an infrastructure advisor that checks every annotated method of
 * the application's beans at startup, ordered {@link DistributedLockAdvisor#DEFAULT_ORDER} (outside
 * {@code @Transactional}, so that permits come back only after the transaction committed).
 */
public class DistributedSemaphoreAdvisor extends AnnotationAdvisor {

	private static final long serialVersionUID = 1L;

	private final transient DistributedSemaphoreInterceptor interceptor;

	/**
	 * @param interceptor what runs around annotated methods
	 */
	public DistributedSemaphoreAdvisor(DistributedSemaphoreInterceptor interceptor) {
		super(DistributedSemaphore.class, interceptor, DistributedLockAdvisor.DEFAULT_ORDER);
		this.interceptor = interceptor;
	}

	@Override
	protected void check(Method method, Class<?> targetClass) {
		this.interceptor.check(method, targetClass);
	}

}
