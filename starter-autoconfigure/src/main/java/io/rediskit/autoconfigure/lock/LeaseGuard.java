package io.rediskit.autoconfigure.lock;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

import io.rediskit.autoconfigure.support.AsyncResults;
import io.rediskit.autoconfigure.support.FallbackMethod;
import io.rediskit.autoconfigure.support.MethodKeyEvaluator;
import io.rediskit.lock.Lease;
import io.rediskit.lock.LockNotAcquiredException;
import io.rediskit.support.RedisFailures;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.ReactiveAdapter;
import org.springframework.dao.DataAccessException;

/**
 * How a method runs under a lease of the lock family, whichever annotation asked for it ({@code @DistributedLock},
 * {@code @DistributedSemaphore}): the blocking, {@code CompletionStage} and reactive paths, the failure strategy
 * (fallback, skip, exception), and the rule that work that ran is not reported as failed when only its release
 * could not reach Redis. An interceptor says only how its lease is taken and what "not acquired" is called; the
 * rest is here, once.
 */
final class LeaseGuard {

	private static final Log logger = LogFactory.getLog(LeaseGuard.class);

	private LeaseGuard() {
	}

	/**
	 * Runs the method under a lease, on the path its return type asks for.
	 * @param resolved the method's resolution
	 * @param skip whether the annotation asks for {@code SKIP} when the lease is busy
	 * @param invocation the call
	 * @param acquireAsync starts an asynchronous acquisition, whose future cancels it
	 * @param acquire takes the lease on the calling thread
	 * @param notAcquired the exception of a lease not acquired, with the Redis failure as cause or {@code null}
	 * @return what the method (or its fallback) returns, {@code null} for a skip
	 * @throws Throwable what the method or its fallback throws, or the exception of a lease not acquired
	 */
	static @Nullable Object run(LeaseMethod<?> resolved, boolean skip, MethodInvocation invocation,
			Supplier<CompletionStage<Lease>> acquireAsync, Blocking acquire,
			Function<@Nullable Throwable, ? extends LockNotAcquiredException> notAcquired) throws Throwable {
		Function<Throwable, Throwable> acquireFailure = (failure) -> unavailable(failure)
				? notAcquired.apply(failure) : failure;
		if (resolved.kind() == AsyncResults.Kind.STAGE) {
			return lockStage(() -> acquireAsync.get().toCompletableFuture(), acquireFailure,
					AsyncResults.defer(invocation));
		}
		ReactiveAdapter adapter = (resolved.kind() == AsyncResults.Kind.REACTIVE)
				? AsyncResults.adapter(resolved.method().getReturnType()) : null;
		if (adapter != null) {
			return ReactiveLocking.lock(adapter, () -> acquireAsync.get().toCompletableFuture(), acquireFailure,
					AsyncResults.defer(invocation));
		}
		Runnable release;
		try {
			release = acquire.acquire();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw notAcquired.apply(ex);
		}
		catch (DataAccessException ex) {
			if (!RedisFailures.isUnavailable(ex)) {
				throw ex;
			}
			return notAcquired(resolved.fallback(), skip, resolved.method(), invocation, notAcquired.apply(ex));
		}
		if (release == null) {
			return notAcquired(resolved.fallback(), skip, resolved.method(), invocation, notAcquired.apply(null));
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
				release.run();
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
	 * The failure strategy of a blocking call that did not get its lease: the fallback (for a busy lease and an
	 * outage alike), else a skip (only for a busy lease), else the exception.
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
		return unavailable(failure);
	}

	/** Redis unavailable (down, unreachable, too slow), as opposed to a command error. */
	private static boolean unavailable(Throwable failure) {
		return failure instanceof DataAccessException && RedisFailures.isUnavailable(failure);
	}

	/**
	 * Runs a method returning a {@link CompletionStage} under a lease: acquired when the method is called,
	 * released when its stage completes.
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

	/** Takes a lease on the calling thread. */
	@FunctionalInterface
	interface Blocking {

		/**
		 * @return how to release what was taken, or {@code null} when the wait ran out
		 * @throws InterruptedException if interrupted while waiting; nothing is held then
		 */
		@Nullable Runnable acquire() throws InterruptedException;

	}

}
