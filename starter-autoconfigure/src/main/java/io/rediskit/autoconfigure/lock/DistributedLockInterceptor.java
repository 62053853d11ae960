package io.rediskit.autoconfigure.lock;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

import io.rediskit.autoconfigure.support.AnnotationInterceptor;
import io.rediskit.autoconfigure.support.AsyncResults;
import io.rediskit.autoconfigure.support.Durations;
import io.rediskit.autoconfigure.support.FallbackMethod;
import io.rediskit.autoconfigure.support.MethodKeyEvaluator;
import io.rediskit.lock.DistributedLock;
import io.rediskit.lock.LockNotAcquiredException;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.LockSpec;
import io.rediskit.lock.Locks;
import io.rediskit.lock.RedisLock;
import io.rediskit.lock.RedlockRegistry;
import io.rediskit.support.RedisFailures;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.PropertyResolver;

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
 * {@link #check(Method, Class)}: besides what every annotation interceptor checks, a {@code SKIP} together with a
 * fallback, either on an asynchronous method or {@code SKIP} on one returning a primitive value, a zero lease,
 * and a Redlock lease shorter than three node timeouts. At run time each method's annotation and durations are
 * resolved on its first call and cached. The paths and the failure strategy are {@link LeaseGuard}'s, shared
 * with {@code @DistributedSemaphore}.
 */
public final class DistributedLockInterceptor
		extends AnnotationInterceptor<DistributedLock, LeaseMethod<DistributedLock>> {

	private final ObjectProvider<LockRegistry> lockRegistry;

	private final @Nullable ObjectProvider<RedlockRegistry> redlockRegistry;

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
		super(DistributedLock.class, DistributedLock::key, placeholders);
		this.lockRegistry = lockRegistry;
		this.redlockRegistry = redlockRegistry;
	}

	@Override
	protected void checkResolved(LeaseMethod<DistributedLock> resolved, DistributedLock annotation) {
		LeaseGuard.checkNotAcquired(skip(annotation), annotation.fallbackMethod(), resolved.description(),
				resolved.method(), resolved.kind());
		// A single-node lease is checked when resolved (at least 1 ms); Redlock's shortest depends on its node timeout.
		if (annotation.redlock()) {
			Locks locks = locks(annotation, resolved, true);
			Duration shortest = locks.minimumLeaseTime();
			if (resolved.leaseTime() != null && resolved.leaseTime().compareTo(shortest) < 0) {
				throw new IllegalArgumentException("leaseTime of " + resolved.description() + " on "
						+ MethodKeyEvaluator.describe(resolved.method()) + " must be at least three Redlock node timeouts ("
						+ Durations.format(shortest) + "), was " + Durations.format(resolved.leaseTime()));
			}
		}
	}

	/**
	 * The entry point a method locks through: Redlock when it asks for it, else the single-node registry.
	 * @param atStartup whether the method is checked at startup, which fails with IllegalArgumentException
	 */
	private Locks locks(DistributedLock annotation, LeaseMethod<DistributedLock> resolved, boolean atStartup) {
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
	protected @Nullable Object invoke(LeaseMethod<DistributedLock> resolved, DistributedLock annotation,
			MethodInvocation invocation) throws Throwable {
		String key = key(resolved, annotation, invocation);
		Locks locks = locks(annotation, resolved, false);
		RedisLock lock = (key == null) ? locks.getLock(annotation.name()) : locks.getLock(annotation.name(), key);
		Duration waitTime = (resolved.waitTime() != null) ? resolved.waitTime() : locks.defaultWaitTime();
		Duration leaseTime = resolved.leaseTime();
		// Thread-owned on the blocking path, so that the method may call others on the same lock (reentrancy).
		return LeaseGuard.run(resolved, skip(annotation), invocation, () -> lock.acquireAsync(waitTime, leaseTime),
				() -> lock.tryLock(waitTime, leaseTime) ? lock::unlock : null,
				(cause) -> new LockNotAcquiredException(lock.name(), waitTime, cause));
	}

	private static boolean skip(DistributedLock annotation) {
		return annotation.onNotAcquired() == DistributedLock.OnNotAcquired.SKIP;
	}

	@Override
	protected LeaseMethod<DistributedLock> resolve(@Nullable DistributedLock annotation, Method specific,
			Class<?> targetClass) {
		if (annotation == null) {
			return LeaseMethod.none(specific);
		}
		String description = "@DistributedLock(name = \"" + annotation.name() + "\""
				+ (annotation.redlock() ? ", redlock = true" : "") + ")";
		Duration waitTime = duration(annotation.waitTime(), "waitTime", description, specific, LockSpec.MAX_DURATION);
		Duration leaseTime = duration(annotation.leaseTime(), "leaseTime", description, specific,
				LockSpec.MAX_DURATION);
		if (leaseTime != null && leaseTime.isZero()) {
			throw new IllegalArgumentException("leaseTime of " + description + " on "
					+ MethodKeyEvaluator.describe(specific)
					+ " must be positive; leave it empty for the default lease or a watchdog-renewed one");
		}
		FallbackMethod fallback = annotation.fallbackMethod().isEmpty() ? null
				: FallbackMethod.find(annotation.fallbackMethod(), description, LockNotAcquiredException.class,
						specific, targetClass);
		return new LeaseMethod<>(annotation, specific, description, waitTime, leaseTime, AsyncResults.kind(specific),
				fallback);
	}

}
