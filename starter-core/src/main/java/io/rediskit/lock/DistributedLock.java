package io.rediskit.lock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method while holding a distributed lock. With the redis-kit Spring Boot starter, any
 * Spring bean method can carry it:
 *
 * <pre>{@code
 * @DistributedLock(name = "orders", key = "#order.id", waitTime = "2s")
 * public Receipt pay(Order order) { ... }
 * }</pre>
 *
 * The lock is {@code name}, or {@code name:<key>} when a key is given. The key is a SpEL expression over the
 * method's parameters (by name, or as {@code #p0}, {@code #a0}); its value is used as data and never
 * evaluated again. Type references, bean references and constructors are not available in the expression.
 * The lock is reentrant for the calling thread.
 * <p>
 * <b>When the lock is not acquired</b> within the wait time, the method does not run, and one of three things
 * happens (like {@code @RateLimited}'s fallback): with a {@link #fallbackMethod()}, that method runs instead and
 * its result is returned; with {@code onNotAcquired = SKIP}, the call returns {@code null} (nothing for a
 * {@code void} method) after a debug log line (the metrics count the wait as {@code result=timeout}); otherwise
 * {@link LockNotAcquiredException} is thrown (the default). When Redis cannot be reached, the fallback runs too
 * (with the exception, whose cause is the Redis failure), but {@code SKIP} does not skip: an outage is not a
 * busy lock, and the exception is thrown.
 * <p>
 * On a method returning a {@code Mono}, a {@code Flux}, a {@code CompletionStage} or another reactive type, the
 * lock is a lease owned by no thread (not reentrant), acquired without blocking a thread on each subscription
 * (for a {@code CompletionStage}, when the method is called), held until the publisher completes, fails or is
 * cancelled, and renewed by the watchdog meanwhile; failures are error signals.
 */
@Target({ ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

	/**
	 * Lock group name; also the {@code lock} tag of the metrics.
	 * @return the name
	 */
	String name();

	/**
	 * SpEL expression over the method parameters that selects one lock within the group, such as
	 * {@code "#order.id"}; empty for a single lock named {@link #name()}.
	 * @return the key expression
	 */
	String key() default "";

	/**
	 * How long to wait for the lock, such as {@code "2s"}, {@code "500ms"}, {@code "PT2S"} or a
	 * {@code ${placeholder}}; empty for {@code redis-kit.lock.default-wait-time}; {@code "0s"} for a single
	 * attempt.
	 * @return the wait time
	 */
	String waitTime() default "";

	/**
	 * Lease of the lock, in the same formats; empty for {@code redis-kit.lock.default-lease-time}, and when
	 * that is unset for a lease renewed by the watchdog while the method runs.
	 * @return the lease time
	 */
	String leaseTime() default "";

	/**
	 * Whether to lock with Redlock, over the independent servers of {@code redis-kit.lock.redlock.nodes}
	 * ({@link RedlockRegistry}), instead of the application's Redis; the wait and lease then default to
	 * {@code redis-kit.lock.redlock.*}. Startup fails when Redlock is not configured.
	 * @return whether to use Redlock
	 */
	boolean redlock() default false;

	/**
	 * What a call does when the lock is not acquired within the wait time and there is no
	 * {@link #fallbackMethod()}: throw {@link LockNotAcquiredException} (the default) or skip the method.
	 * {@code SKIP} is for methods returning {@code void} or an object (the call returns {@code null}), not on
	 * asynchronous methods; startup fails otherwise.
	 * @return the strategy
	 */
	OnNotAcquired onNotAcquired() default OnNotAcquired.THROW;

	/**
	 * Name of a method to run instead when the lock is not acquired, on the same object with the same
	 * arguments, optionally followed by the {@link LockNotAcquiredException}; it must return what the
	 * annotated method returns. Checked at startup; not on asynchronous methods. Empty for none.
	 * @return the fallback method's name
	 */
	String fallbackMethod() default "";

	/** What a call does when the lock is not acquired and no fallback method is given. */
	enum OnNotAcquired {

		/** Throw {@link LockNotAcquiredException}. */
		THROW,

		/**
		 * Return without running the method, silently (a debug log line; the wait is observed, and counted,
		 * as a timeout: {@code rediskit.lock.wait}); an outage of Redis is still thrown.
		 */
		SKIP

	}

}
