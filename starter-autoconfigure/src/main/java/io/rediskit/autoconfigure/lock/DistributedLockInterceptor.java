package io.rediskit.autoconfigure.lock;

import java.lang.reflect.Method;
import java.time.Duration;

import io.rediskit.autoconfigure.support.AnnotationDurations;
import io.rediskit.autoconfigure.support.MethodKeyEvaluator;
import io.rediskit.lock.DistributedLock;
import io.rediskit.lock.LockNotAcquiredException;
import io.rediskit.lock.RedisLock;
import io.rediskit.lock.LockRegistry;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.PropertyResolver;

/**
 * Runs a {@link DistributedLock @DistributedLock} method while holding its lock: {@code name}, or
 * {@code name:<key>} with the key expression's value. The lock is thread-owned, so the method may call other
 * annotated methods on the same lock (reentrancy), and it is released when the method returns or throws.
 * Not acquired in time: {@link LockNotAcquiredException} and the method does not run. A lease lost while the
 * method ran is reported by {@link io.rediskit.lock.LockLeaseLostException} after it returns.
 */
public class DistributedLockInterceptor implements MethodInterceptor {

	private final ObjectProvider<LockRegistry> lockRegistry;

	private final MethodKeyEvaluator keys = new MethodKeyEvaluator();

	private final AnnotationDurations durations;

	/**
	 * @param lockRegistry where locks come from, resolved on first use
	 * @param placeholders resolves placeholders in duration attributes
	 */
	public DistributedLockInterceptor(ObjectProvider<LockRegistry> lockRegistry, PropertyResolver placeholders) {
		this.lockRegistry = lockRegistry;
		this.durations = new AnnotationDurations(placeholders);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Method method = invocation.getMethod();
		Class<?> targetClass = (invocation.getThis() != null) ? AopUtils.getTargetClass(invocation.getThis())
				: method.getDeclaringClass();
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
		if (annotation == null) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
		}
		if (annotation == null) {
			return invocation.proceed();
		}
		String description = "@DistributedLock(name = \"" + annotation.name() + "\")";
		LockRegistry factory = this.lockRegistry.getObject();
		RedisLock lock = annotation.key().isEmpty() ? factory.getLock(annotation.name())
				: factory.getLock(annotation.name(),
						this.keys.evaluate(annotation.key(), specific, invocation.getArguments(), description));
		Duration waitTime = annotation.waitTime().isEmpty() ? factory.spec().defaultWaitTime()
				: this.durations.parse(annotation.waitTime(), "waitTime", description, specific);
		Duration leaseTime = annotation.leaseTime().isEmpty() ? null
				: this.durations.parse(annotation.leaseTime(), "leaseTime", description, specific);
		if (leaseTime != null && leaseTime.isZero()) {
			throw new IllegalArgumentException("leaseTime of " + description + " on " + specific.getName()
					+ " must be positive; leave it empty for a watchdog-renewed lease");
		}
		boolean acquired;
		try {
			acquired = lock.tryLock(waitTime, leaseTime);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockNotAcquiredException(lock.getName(), waitTime, ex);
		}
		if (!acquired) {
			throw new LockNotAcquiredException(lock.getName(), waitTime, null);
		}
		Throwable failure = null;
		try {
			return invocation.proceed();
		}
		catch (Throwable ex) {
			failure = ex;
			throw ex;
		}
		finally {
			try {
				lock.unlock();
			}
			catch (RuntimeException ex) {
				if (failure == null) {
					throw ex;
				}
				failure.addSuppressed(ex);
			}
		}
	}

}
