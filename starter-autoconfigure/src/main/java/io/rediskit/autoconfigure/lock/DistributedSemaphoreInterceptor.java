package io.rediskit.autoconfigure.lock;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;

import io.rediskit.autoconfigure.support.AnnotationDurations;
import io.rediskit.autoconfigure.support.AsyncResults;
import io.rediskit.autoconfigure.support.FallbackMethod;
import io.rediskit.autoconfigure.support.MethodKeyEvaluator;
import io.rediskit.lock.DistributedSemaphore;
import io.rediskit.lock.Lease;
import io.rediskit.lock.LockSpec;
import io.rediskit.lock.RedisSemaphore;
import io.rediskit.lock.SemaphoreNotAcquiredException;
import io.rediskit.lock.SemaphoreRegistry;
import io.rediskit.support.Names;
import io.rediskit.support.RedisFailures;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.env.PropertyResolver;
import org.springframework.dao.DataAccessException;

/**
 * Runs a {@link DistributedSemaphore @DistributedSemaphore} method while holding permits of its semaphore,
 * {@code name} (or {@code name:<key>}) with {@code permits} in total, {@code permitsPerCall} per call, for a lease
 * owned by no thread and renewed by the watchdog, given back when the method returns or throws (for a
 * {@code CompletionStage} when its stage completes, for a reactive type when its publisher ends). The failure
 * strategy, the asynchronous paths and the rule that work that ran is not reported as failed are those of
 * {@link DistributedLockInterceptor}, whose pieces it reuses; only how the lease is taken differs. A lease lost
 * while the method ran is reported by {@link io.rediskit.lock.LockLeaseLostException} after it returns.
 * <p>
 * {@link DistributedSemaphoreAdvisor} checks every annotated method at startup through {@link #check}.
 */
public class DistributedSemaphoreInterceptor implements MethodInterceptor {

	private final ObjectProvider<SemaphoreRegistry> registry;

	private final MethodKeyEvaluator keys = new MethodKeyEvaluator();

	private final AnnotationDurations durations;

	private final AnnotatedMethods<DistributedSemaphore, Resolved> methods = new AnnotatedMethods<>(
			DistributedSemaphore.class, this::resolve);

	/**
	 * @param registry where semaphores come from, resolved on first use
	 * @param placeholders resolves placeholders in duration attributes
	 */
	public DistributedSemaphoreInterceptor(ObjectProvider<SemaphoreRegistry> registry, PropertyResolver placeholders) {
		this.registry = registry;
		this.durations = new AnnotationDurations(placeholders);
	}

	/**
	 * Checks an annotated method as {@link #invoke} would find it, so that what would fail every call fails
	 * startup instead: {@code permits} below 1, {@code permitsPerCall} below 1 or above {@code permits}, a key
	 * expression that does not parse or names no parameter, a duration that is not one, a zero lease, and the
	 * failure strategies {@link DistributedLockInterceptor#check} refuses.
	 * @param method the annotated method, as declared on the target class
	 * @param targetClass the class of the bean behind any proxy
	 * @throws IllegalArgumentException naming the method and the attribute
	 */
	public void check(Method method, Class<?> targetClass) {
		Resolved resolved = this.methods.resolve(method, targetClass);
		DistributedSemaphore annotation = resolved.annotation();
		if (annotation == null) {
			return;
		}
		if (!annotation.key().isEmpty()) {
			this.keys.check(annotation.key(), resolved.method(), resolved.description());
		}
		DistributedLockInterceptor.checkNotAcquired(skip(annotation), annotation.fallbackMethod(),
				resolved.description(), resolved.method(), resolved.kind());
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Resolved resolved = this.methods.get(invocation);
		DistributedSemaphore annotation = resolved.annotation();
		if (annotation == null) {
			return invocation.proceed();
		}
		SemaphoreRegistry semaphores = this.registry.getObject();
		RedisSemaphore semaphore = annotation.key().isEmpty()
				? semaphores.getSemaphore(annotation.name(), annotation.permits())
				: semaphores.getSemaphore(annotation.name(), this.keys.evaluate(annotation.key(), resolved.method(),
						invocation.getArguments(), resolved.description()), annotation.permits());
		int permits = annotation.permitsPerCall();
		Duration waitTime = (resolved.waitTime() != null) ? resolved.waitTime() : semaphores.defaultWaitTime();
		Duration leaseTime = resolved.leaseTime();
		if (resolved.kind() == AsyncResults.Kind.STAGE) {
			return DistributedLockInterceptor.lockStage(
					() -> semaphore.acquireAsync(permits, waitTime, leaseTime).toCompletableFuture(),
					(failure) -> acquireFailure(semaphore, permits, waitTime, failure), AsyncResults.defer(invocation));
		}
		ReactiveAdapter adapter = (resolved.kind() == AsyncResults.Kind.REACTIVE)
				? AsyncResults.adapter(resolved.method().getReturnType()) : null;
		if (adapter != null) {
			return ReactiveLocking.lock(adapter,
					() -> semaphore.acquireAsync(permits, waitTime, leaseTime).toCompletableFuture(),
					(failure) -> acquireFailure(semaphore, permits, waitTime, failure), AsyncResults.defer(invocation));
		}
		Optional<Lease> acquired;
		try {
			acquired = semaphore.tryAcquire(permits, waitTime, leaseTime);
		}
		catch (DataAccessException ex) {
			if (!RedisFailures.isUnavailable(ex)) {
				throw ex;
			}
			return notAcquired(resolved, invocation,
					new SemaphoreNotAcquiredException(semaphore.name(), permits, waitTime, ex));
		}
		if (acquired.isEmpty()) {
			return notAcquired(resolved, invocation,
					new SemaphoreNotAcquiredException(semaphore.name(), permits, waitTime, null));
		}
		Lease lease = acquired.get();
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
				lease.close();
			}
			catch (RuntimeException ex) {
				if (failure != null) {
					failure.addSuppressed(ex);
				}
				else if (!DistributedLockInterceptor.releaseUnreachable(ex)) {
					throw ex;
				}
			}
		}
	}

	private static @Nullable Object notAcquired(Resolved resolved, MethodInvocation invocation,
			SemaphoreNotAcquiredException exception) throws Throwable {
		DistributedSemaphore annotation = resolved.annotation();
		return DistributedLockInterceptor.notAcquired(resolved.fallback(), annotation != null && skip(annotation),
				resolved.method(), invocation, exception);
	}

	/** Redis unavailable while acquiring: not acquired, with the cause, as on the blocking path. */
	private static Throwable acquireFailure(RedisSemaphore semaphore, int permits, Duration waitTime,
			Throwable failure) {
		if (failure instanceof DataAccessException && RedisFailures.isUnavailable(failure)) {
			return new SemaphoreNotAcquiredException(semaphore.name(), permits, waitTime, failure);
		}
		return failure;
	}

	private static boolean skip(DistributedSemaphore annotation) {
		return annotation.onNotAcquired() == DistributedSemaphore.OnNotAcquired.SKIP;
	}

	private Resolved resolve(@Nullable DistributedSemaphore annotation, Method specific, Class<?> targetClass) {
		if (annotation == null) {
			return new Resolved(null, specific, "", null, null, AsyncResults.Kind.PLAIN, null);
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
		Duration waitTime = duration(annotation.waitTime(), "waitTime", description, specific);
		Duration leaseTime = duration(annotation.leaseTime(), "leaseTime", description, specific);
		if (leaseTime != null && leaseTime.toMillis() < 1) {
			throw new IllegalArgumentException("leaseTime of " + on
					+ " must be at least 1ms; leave it empty for the default lease or a watchdog-renewed one");
		}
		FallbackMethod fallback = annotation.fallbackMethod().isEmpty() ? null
				: FallbackMethod.find(annotation.fallbackMethod(), description, SemaphoreNotAcquiredException.class,
						specific, targetClass);
		return new Resolved(annotation, specific, description, waitTime, leaseTime, AsyncResults.kind(specific),
				fallback);
	}

	private @Nullable Duration duration(String text, String attribute, String description, Method method) {
		if (text.isEmpty()) {
			return null;
		}
		return this.durations.parse(text, attribute, description, method, LockSpec.MAX_DURATION);
	}

	/**
	 * What the interceptor needs of one advised method, resolved once.
	 * @param annotation the annotation, {@code null} if the method has none
	 * @param method the method as declared on the target class
	 * @param description the annotation as error messages show it
	 * @param waitTime the wait, {@code null} for the registry's default
	 * @param leaseTime the lease, {@code null} for the registry's default
	 * @param kind how the method returns its result
	 * @param fallback the fallback, if the annotation names one
	 */
	private record Resolved(@Nullable DistributedSemaphore annotation, Method method, String description,
			@Nullable Duration waitTime, @Nullable Duration leaseTime, AsyncResults.Kind kind,
			@Nullable FallbackMethod fallback) {
	}

}
