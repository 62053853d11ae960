package io.rediskit.autoconfigure.lock;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

import io.rediskit.autoconfigure.support.AnnotationDurations;
import io.rediskit.autoconfigure.support.AsyncResults;
import io.rediskit.autoconfigure.support.Durations;
import io.rediskit.autoconfigure.support.FallbackMethod;
import io.rediskit.autoconfigure.support.MethodKeyEvaluator;
import io.rediskit.lock.DistributedLock;
import io.rediskit.lock.Lease;
import io.rediskit.lock.LockNotAcquiredException;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.LockSpec;
import io.rediskit.lock.Locks;
import io.rediskit.lock.RedisLock;
import io.rediskit.lock.RedlockRegistry;
import io.rediskit.support.RedisFailures;
import org.aopalliance.intercept.MethodInterceptor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.env.PropertyResolver;
import org.springframework.dao.DataAccessException;

/**
 * Runs a {@link DistributedLock @DistributedLock} method while holding its lock: {@code name}, or
 * {@code name:<key>} with the key expression's value. The lock is thread-owned, so the method may call other
 * annotated methods on the same lock (reentrancy), and it is released when the method returns or throws.
 * Not acquired in time: the method does not run, and its {@code fallbackMethod} runs instead, or with
 * {@code onNotAcquired = SKIP} the call returns {@code null} (a debug log line, no error), or else
 * {@link LockNotAcquiredException} is thrown. Redis unavailable while acquiring (down, unreachable, too slow:
 * {@link RedisFailures#isUnavailable(Throwable)}): the fallback with the same exception, whose cause is the Redis
 * failure, or else that exception, even with {@code SKIP}, which web applications answer with 503 rather than
 * 409. With
 * {@code redlock = true} the lock is a {@link io.rediskit.lock.RedisLock} of the {@link RedlockRegistry}, with the
 * same behaviour; a method asking for Redlock where none is configured fails startup. A lease lost
 * while the method ran is reported by {@link io.rediskit.lock.LockLeaseLostException} after it returns.
 * <p>
 * <b>Work that ran is not reported as failed.</b> When the method completed and only the release could not reach
 * Redis (an outage), the caller gets the method's result (or the method's own exception, the release failure
 * suppressed in it); the lock logs the outage once per interval and its listeners count the failed release
 * ({@code rediskit.lock.release.failures}). The key stays until its lease ends, so no other holder enters before
 * then, and none is kept out longer.
 * <p>
 * <b>Asynchronous methods.</b> A method returning a {@link CompletionStage} or a reactive type (a {@code Mono},
 * a {@code Flux}, or any type Spring's {@code ReactiveAdapterRegistry} adapts, with Reactor on the class path)
 * is locked without blocking a thread, with a lease owned by no thread ({@link RedisLock#acquireAsync}): a
 * busy lock is waited for with the release message and a bounded poll, not a sleeping thread. For a reactive
 * type nothing happens when the method is called, apart from evaluating the key: each subscription acquires
 * the lock, calls the method, subscribes to its publisher, and releases the lock when that publisher
 * completes, fails or is cancelled, from whichever thread that happens on; the watchdog renews the lease
 * meanwhile. A subscription cancelled while the lock is being acquired leaves no key: a lease taken after the
 * cancellation is released at once. For a {@link CompletionStage} the lock is acquired when the method is
 * called and released when its stage completes; cancelling the returned stage before the lock is held stops
 * the acquisition. The failures are those of the blocking path, as error signals. Leases are not reentrant: an
 * asynchronous method must not call another one on the same lock inside its publisher, it would wait for
 * itself. The method runs on the thread that delivered the lock, the Redis driver's or the lock scheduler's.
 * <p>
 * {@link DistributedLockAdvisor} checks every annotated method of the application's beans at startup through
 * {@link #check(Method, Class)}; at run time each method's annotation and durations are resolved on its first
 * call and cached.
 */
public class DistributedLockInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(DistributedLockInterceptor.class);

	private final ObjectProvider<LockRegistry> lockRegistry;

	private final @Nullable ObjectProvider<RedlockRegistry> redlockRegistry;

	private final MethodKeyEvaluator keys = new MethodKeyEvaluator();

	private final AnnotationDurations durations;

	private final AnnotatedMethods<DistributedLock, Resolved> methods = new AnnotatedMethods<>(DistributedLock.class,
			this::resolve);

	/**
	 * @param lockRegistry where locks come from, resolved on first use
	 * @param placeholders resolves placeholders in duration attributes
	 */
	public DistributedLockInterceptor(ObjectProvider<LockRegistry> lockRegistry, PropertyResolver placeholders) {
		this(lockRegistry, null, placeholders);
	}

	/**
	 * @param lockRegistry where locks come from, resolved on first use
	 * @param redlockRegistry where {@code redlock = true} locks come from, resolved on first use; {@code null}
	 * when Redlock is not available
	 * @param placeholders resolves placeholders in duration attributes
	 */
	public DistributedLockInterceptor(ObjectProvider<LockRegistry> lockRegistry,
			@Nullable ObjectProvider<RedlockRegistry> redlockRegistry, PropertyResolver placeholders) {
		this.lockRegistry = lockRegistry;
		this.redlockRegistry = redlockRegistry;
		this.durations = new AnnotationDurations(placeholders);
	}

	/**
	 * Checks an annotated method as {@link #invoke} would find it, so that what would fail every call fails
	 * startup instead: a key expression that does not parse or names no parameter, a {@code waitTime} or
	 * {@code leaseTime} that is not a duration, is negative, too long, or a zero lease, a fallback method that does
	 * not match, {@code SKIP} together with a fallback, on a method returning a primitive value, and either on an
	 * asynchronous method.
	 * @param method the annotated method, as declared on the target class
	 * @param targetClass the class of the bean behind any proxy
	 * @throws IllegalArgumentException naming the method and the attribute
	 */
	public void check(Method method, Class<?> targetClass) {
		Resolved resolved = this.methods.resolve(method, targetClass);
		DistributedLock annotation = resolved.annotation();
		if (annotation != null && !annotation.key().isEmpty()) {
			this.keys.check(annotation.key(), resolved.method(), resolved.description());
		}
		if (annotation != null) {
			checkNotAcquired(annotation, resolved);
		}
		// A single-node lease is checked above (at least 1 ms); Redlock's shortest depends on its node timeout.
		if (annotation != null && annotation.redlock()) {
			Locks locks = locks(annotation, resolved, true);
			Duration shortest = locks.minimumLeaseTime();
			if (resolved.leaseTime() != null && resolved.leaseTime().compareTo(shortest) < 0) {
				throw new IllegalArgumentException("leaseTime of " + resolved.description() + " on "
						+ MethodKeyEvaluator.describe(resolved.method()) + " must be at least three Redlock node timeouts ("
						+ Durations.format(shortest) + "), was " + Durations.format(resolved.leaseTime()));
			}
		}
	}

	private static void checkNotAcquired(DistributedLock annotation, Resolved resolved) {
		checkNotAcquired(annotation.onNotAcquired() == DistributedLock.OnNotAcquired.SKIP, annotation.fallbackMethod(),
				resolved.description(), resolved.method(), resolved.kind());
	}

	/**
	 * The startup check of a failure strategy, shared by the lock family's annotations.
	 * @param skip whether the annotation asks for {@code SKIP}
	 * @param fallbackMethod the annotation's fallback method, empty for none
	 * @param description the annotation as error messages show it
	 * @param method the annotated method
	 * @param kind how the method returns its result
	 * @throws IllegalArgumentException naming the method and the attribute
	 */
	static void checkNotAcquired(boolean skip, String fallbackMethod, String description, Method method,
			AsyncResults.Kind kind) {
		String on = description + " on " + MethodKeyEvaluator.describe(method);
		if (skip && !fallbackMethod.isEmpty()) {
			throw new IllegalArgumentException(on + ": give either fallbackMethod or onNotAcquired = SKIP, not both"
					+ " (the fallback would always win)");
		}
		if ((skip || !fallbackMethod.isEmpty()) && kind != AsyncResults.Kind.PLAIN) {
			throw new IllegalArgumentException(on + ": " + (skip ? "onNotAcquired = SKIP" : "fallbackMethod")
					+ " is not supported on a method returning " + method.getReturnType().getSimpleName()
					+ "; the lock failure arrives as an error signal carrying LockNotAcquiredException: handle it"
					+ " there (onErrorResume, exceptionally)");
		}
		Class<?> returnType = method.getReturnType();
		if (skip && returnType.isPrimitive() && returnType != void.class) {
			throw new IllegalArgumentException(on + ": onNotAcquired = SKIP needs a method returning void or an"
					+ " object (a skipped call returns null), not " + returnType.getSimpleName()
					+ "; use a fallbackMethod instead");
		}
	}

	/**
	 * The entry point a method locks through: Redlock when it asks for it, else the single-node registry.
	 * @param atStartup whether the method is checked at startup, which fails with IllegalArgumentException
	 */
	private Locks locks(DistributedLock annotation, Resolved resolved, boolean atStartup) {
		if (!annotation.redlock()) {
			return this.lockRegistry.getObject();
		}
		RedlockRegistry redlock = (this.redlockRegistry != null) ? this.redlockRegistry.getIfAvailable() : null;
		if (redlock != null) {
			return redlock;
		}
		if (atStartup) {
			throw new IllegalArgumentException("redlock of " + resolved.description() + " on "
					+ MethodKeyEvaluator.describe(resolved.method())
					+ " needs Redlock, which is not configured: list its servers in redis-kit.lock.redlock.nodes");
		}
		throw new IllegalStateException(resolved.description()
				+ " uses Redlock, which is not configured: list its servers in redis-kit.lock.redlock.nodes");
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Resolved resolved = this.methods.get(invocation);
		DistributedLock annotation = resolved.annotation();
		if (annotation == null) {
			return invocation.proceed();
		}
		String key = annotation.key().isEmpty() ? null
				: this.keys.evaluate(annotation.key(), resolved.method(), invocation.getArguments(),
						resolved.description());
		Locks locks = locks(annotation, resolved, false);
		RedisLock lock = (key == null) ? locks.getLock(annotation.name()) : locks.getLock(annotation.name(), key);
		Duration waitTime = (resolved.waitTime() != null) ? resolved.waitTime() : locks.defaultWaitTime();
		if (resolved.kind() == AsyncResults.Kind.STAGE) {
			Duration leaseTime = resolved.leaseTime();
			return lockStage(() -> lock.acquireAsync(waitTime, leaseTime).toCompletableFuture(),
					(failure) -> acquireFailure(lock, waitTime, failure), AsyncResults.defer(invocation));
		}
		ReactiveAdapter adapter = (resolved.kind() == AsyncResults.Kind.REACTIVE)
				? AsyncResults.adapter(resolved.method().getReturnType()) : null;
		if (adapter != null) {
			Duration leaseTime = resolved.leaseTime();
			return ReactiveLocking.lock(adapter, () -> lock.acquireAsync(waitTime, leaseTime).toCompletableFuture(),
					(failure) -> acquireFailure(lock, waitTime, failure), AsyncResults.defer(invocation));
		}
		boolean acquired;
		try {
			acquired = lock.tryLock(waitTime, resolved.leaseTime());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockNotAcquiredException(lock.name(), waitTime, ex);
		}
		catch (DataAccessException ex) {
			if (!RedisFailures.isUnavailable(ex)) {
				throw ex;
			}
			return notAcquired(resolved, invocation, new LockNotAcquiredException(lock.name(), waitTime, ex));
		}
		if (!acquired) {
			return notAcquired(resolved, invocation, new LockNotAcquiredException(lock.name(), waitTime, null));
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
				if (failure != null) {
					failure.addSuppressed(ex);
				}
				else if (!releaseUnreachable(ex)) {
					throw ex;
				}
			}
		}
	}

	/**
	 * The failure strategy of a blocking call that did not get the lock: the fallback (for a busy lock and an
	 * outage alike), else a skip (only for a busy lock), else the exception.
	 */
	private static @Nullable Object notAcquired(Resolved resolved, MethodInvocation invocation,
			LockNotAcquiredException exception) throws Throwable {
		DistributedLock annotation = resolved.annotation();
		return notAcquired(resolved.fallback(),
				annotation != null && annotation.onNotAcquired() == DistributedLock.OnNotAcquired.SKIP,
				resolved.method(), invocation, exception);
	}

	/**
	 * The failure strategy of a blocking call that did not get its lease, shared by the lock family's annotations.
	 * @param fallback the fallback, if the annotation names one
	 * @param skip whether the annotation asks for {@code SKIP}
	 * @param method the annotated method, for the debug line of a skip
	 * @return what the fallback returns, or {@code null} for a skip
	 * @throws Throwable the exception when neither applies, or what the fallback throws
	 */
	static @Nullable Object notAcquired(@Nullable FallbackMethod fallback, boolean skip, Method method,
			MethodInvocation invocation, LockNotAcquiredException exception) throws Throwable {
		if (fallback != null) {
			return fallback.invoke(invocation.getThis(), invocation.getArguments(), exception);
		}
		if (skip && exception.getCause() == null) {
			// A busy lock is what SKIP is for: another caller does the work, so this is no error to log.
			if (logger.isDebugEnabled()) {
				logger.debug("Skipped " + MethodKeyEvaluator.describe(method) + ": '" + exception.getLockName()
						+ "' is held elsewhere");
			}
			return null;
		}
		throw exception;
	}

	/**
	 * Whether a release failed only because Redis could not be reached, after the method completed: its work
	 * stands, and reporting it as failed would make the client do it again. The lock already logged the outage
	 * (once per interval) and told its listeners; the lease ends the hold, so no other owner enters before then.
	 */
	static boolean releaseUnreachable(Throwable failure) {
		return failure instanceof DataAccessException && RedisFailures.isUnavailable(failure);
	}

	/**
	 * Runs a method returning a {@link CompletionStage} under a lease of the lock family, shared by its
	 * annotations: acquired when the method is called, released when its stage completes.
	 * @param acquire starts the acquisition, whose future cancels it
	 * @param acquireFailure turns a failed acquisition into the error the caller sees
	 * @param call the method
	 * @return the method's stage, completed after the release
	 */
	static CompletionStage<?> lockStage(Supplier<CompletableFuture<Lease>> acquire,
			Function<Throwable, Throwable> acquireFailure, AsyncResults.Deferred call) {
		CompletableFuture<@Nullable Object> result = new CompletableFuture<>();
		CompletableFuture<Lease> acquiring = acquire.get();
		// The acquisition releases a lease it takes after being cancelled.
		result.whenComplete((value, failure) -> acquiring.cancel(false));
		acquiring.whenComplete((lease, failure) -> {
			if (failure != null) {
				result.completeExceptionally(acquireFailure.apply(AsyncResults.unwrap(failure)));
				return;
			}
			if (result.isDone()) {
				lease.releaseAsync();
				return;
			}
			CompletionStage<?> work;
			try {
				work = AsyncResults.stage(call.proceed());
			}
			catch (Throwable ex) {
				work = CompletableFuture.failedFuture(ex);
			}
			work.whenComplete((value, error) -> lease.releaseAsync().whenComplete((released, releaseFailure) -> {
				if (error != null) {
					Throwable cause = AsyncResults.unwrap(error);
					if (releaseFailure != null) {
						cause.addSuppressed(AsyncResults.unwrap(releaseFailure));
					}
					result.completeExceptionally(cause);
				}
				else if (releaseFailure != null && !releaseUnreachable(AsyncResults.unwrap(releaseFailure))) {
					result.completeExceptionally(AsyncResults.unwrap(releaseFailure));
				}
				else {
					result.complete(value);
				}
			}));
		});
		return result;
	}

	/** Redis unavailable while acquiring: not acquired, with the cause, as on the blocking path. */
	private static Throwable acquireFailure(RedisLock lock, Duration waitTime, Throwable failure) {
		if (failure instanceof DataAccessException && RedisFailures.isUnavailable(failure)) {
			return new LockNotAcquiredException(lock.name(), waitTime, failure);
		}
		return failure;
	}

	private Resolved resolve(@Nullable DistributedLock annotation, Method specific, Class<?> targetClass) {
		if (annotation == null) {
			return new Resolved(null, specific, "", null, null, AsyncResults.Kind.PLAIN, null);
		}
		String description = "@DistributedLock(name = \"" + annotation.name() + "\""
				+ (annotation.redlock() ? ", redlock = true" : "") + ")";
		Duration waitTime = duration(annotation.waitTime(), "waitTime", description, specific);
		Duration leaseTime = duration(annotation.leaseTime(), "leaseTime", description, specific);
		if (leaseTime != null && leaseTime.isZero()) {
			throw new IllegalArgumentException("leaseTime of " + description + " on "
					+ MethodKeyEvaluator.describe(specific)
					+ " must be positive; leave it empty for the default lease or a watchdog-renewed one");
		}
		FallbackMethod fallback = annotation.fallbackMethod().isEmpty() ? null
				: FallbackMethod.find(annotation.fallbackMethod(), description, LockNotAcquiredException.class,
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
	 * @param method the method as declared on the target class, whose parameter names the key expression uses
	 * @param description the annotation as error messages show it
	 * @param waitTime the wait, {@code null} for the registry's default
	 * @param leaseTime the lease, {@code null} for the registry's default
	 * @param kind how the method returns its result
	 * @param fallback the fallback, if the annotation names one
	 */
	private record Resolved(@Nullable DistributedLock annotation, Method method, String description,
			@Nullable Duration waitTime, @Nullable Duration leaseTime, AsyncResults.Kind kind,
			@Nullable FallbackMethod fallback) {
	}

}
