package io.rediskit.autoconfigure.lock;

import java.lang.reflect.Method;
import java.time.Duration;

import io.rediskit.autoconfigure.support.AnnotationInterceptor;
import io.rediskit.autoconfigure.support.AsyncResults;
import io.rediskit.autoconfigure.support.FallbackMethod;
import io.rediskit.autoconfigure.support.MethodKeyEvaluator;
import io.rediskit.lock.DistributedSemaphore;
import io.rediskit.lock.LockSpec;
import io.rediskit.lock.RedisSemaphore;
import io.rediskit.lock.SemaphoreNotAcquiredException;
import io.rediskit.lock.SemaphoreRegistry;
import io.rediskit.support.Names;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.PropertyResolver;

/**
 * Runs a {@link DistributedSemaphore @DistributedSemaphore} method while holding permits of its semaphore,
 * {@code name} (or {@code name:<key>}) with {@code permits} in total, {@code permitsPerCall} per call, for a lease
 * owned by no thread and renewed by the watchdog, given back when the method returns or throws (for a
 * {@code CompletionStage} when its stage completes, for a reactive type when its publisher ends). The failure
 * strategy, the asynchronous paths and the rule that work that ran is not reported as failed are those of
 * {@link DistributedLockInterceptor}, written once in {@link LeaseGuard}; only how the lease is taken differs. A lease lost
 * while the method ran is reported by {@link io.rediskit.lock.LockLeaseLostException} after it returns.
 * <p>
 * {@link DistributedSemaphoreAdvisor} checks every annotated method at startup through {@link #check}: besides what
 * every annotation interceptor checks, {@code permits} below 1, {@code permitsPerCall} below 1 or above
 * {@code permits}, a lease under 1 ms, and the failure strategies {@code @DistributedLock} refuses.
 */
public final class DistributedSemaphoreInterceptor
		extends AnnotationInterceptor<DistributedSemaphore, LeaseMethod<DistributedSemaphore>> {

	private final ObjectProvider<SemaphoreRegistry> registry;

	/**
	 * @param registry where semaphores come from, resolved on first use
	 * @param placeholders resolves placeholders in duration attributes
	 */
	public DistributedSemaphoreInterceptor(ObjectProvider<SemaphoreRegistry> registry, PropertyResolver placeholders) {
		super(DistributedSemaphore.class, DistributedSemaphore::key, placeholders);
		this.registry = registry;
	}

	@Override
	protected void checkResolved(LeaseMethod<DistributedSemaphore> resolved, DistributedSemaphore annotation) {
		LeaseGuard.checkNotAcquired(skip(annotation), annotation.fallbackMethod(), resolved.description(),
				resolved.method(), resolved.kind());
	}

	@Override
	protected @Nullable Object invoke(LeaseMethod<DistributedSemaphore> resolved, DistributedSemaphore annotation,
			MethodInvocation invocation) throws Throwable {
		SemaphoreRegistry semaphores = this.registry.getObject();
		String key = key(resolved, annotation, invocation);
		RedisSemaphore semaphore = (key == null) ? semaphores.getSemaphore(annotation.name(), annotation.permits())
				: semaphores.getSemaphore(annotation.name(), key, annotation.permits());
		int permits = annotation.permitsPerCall();
		Duration waitTime = (resolved.waitTime() != null) ? resolved.waitTime() : semaphores.defaultWaitTime();
		Duration leaseTime = resolved.leaseTime();
		return LeaseGuard.run(resolved, skip(annotation), invocation,
				() -> semaphore.acquireAsync(permits, waitTime, leaseTime),
				() -> semaphore.tryAcquire(permits, waitTime, leaseTime).<Runnable>map((lease) -> lease::close)
					.orElse(null),
				(cause) -> new SemaphoreNotAcquiredException(semaphore.name(), permits, waitTime, cause));
	}

	private static boolean skip(DistributedSemaphore annotation) {
		return annotation.onNotAcquired() == DistributedSemaphore.OnNotAcquired.SKIP;
	}

	@Override
	protected LeaseMethod<DistributedSemaphore> resolve(@Nullable DistributedSemaphore annotation, Method specific,
			Class<?> targetClass) {
		if (annotation == null) {
			return LeaseMethod.none(specific);
		}
		String description = "@DistributedSemaphore(name = \"" + annotation.name() + "\", permits = "
				+ annotation.permits() + ")";
		String on = description + " on " + MethodKeyEvaluator.describe(specific);
		if (!Names.isValid(annotation.name())) {
			throw new IllegalArgumentException("name of " + on + " must be " + Names.RULE + " (no '.', ':' or space),"
					+ " was '" + annotation.name() + "'");
		}
		if (annotation.permits() < 1) {
			throw new IllegalArgumentException("permits of " + on + " must be at least 1, was " + annotation.permits());
		}
		if (annotation.permitsPerCall() < 1 || annotation.permitsPerCall() > annotation.permits()) {
			throw new IllegalArgumentException("permitsPerCall of " + on + " must be between 1 and permits ("
					+ annotation.permits() + "), was " + annotation.permitsPerCall());
		}
		Duration waitTime = duration(annotation.waitTime(), "waitTime", description, specific, LockSpec.MAX_DURATION);
		Duration leaseTime = duration(annotation.leaseTime(), "leaseTime", description, specific,
				LockSpec.MAX_DURATION);
		if (leaseTime != null && leaseTime.toMillis() < 1) {
			throw new IllegalArgumentException("leaseTime of " + on
					+ " must be at least 1ms; leave it empty for the default lease or a watchdog-renewed one");
		}
		FallbackMethod fallback = annotation.fallbackMethod().isEmpty() ? null
				: FallbackMethod.find(annotation.fallbackMethod(), description, SemaphoreNotAcquiredException.class,
						specific, targetClass);
		return new LeaseMethod<>(annotation, specific, description, waitTime, leaseTime, AsyncResults.kind(specific),
				fallback);
	}

}
