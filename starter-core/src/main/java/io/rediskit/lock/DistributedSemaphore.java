package io.rediskit.lock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Bounds the concurrent calls of the annotated method across all instances of the application with a
 * {@link RedisSemaphore}. With the redis-kit Spring Boot starter, any Spring bean method can carry it:
 *
 * <pre>{@code
 * @DistributedSemaphore(name = "monthly-report", permits = 4, waitTime = "2s")
 * public Report render(Month month) { ... }
 * }</pre>
 *
 * At most {@link #permits()} calls run at once in the whole cluster (each takes {@link #permitsPerCall()}); a call
 * that finds none free waits up to the wait time. The semaphore is {@code name}, or {@code name:<key>} with a
 * {@link #key()}, one semaphore per key value. Each call holds its permits for a lease renewed by the watchdog
 * while the method runs, so a crashed instance's calls stop counting within one watchdog timeout.
 * <p>
 * Not Spring Framework 7's {@code @ConcurrencyLimit}, which bounds the calls of one JVM with a local counter, with
 * no Redis and no lease: use it to protect a local resource, and this annotation to protect a shared one (a
 * database, a partner API) from all instances together.
 * <p>
 * <b>When no permits are acquired</b> within the wait time, the method does not run; the failure strategy is the
 * one of {@link DistributedLock @DistributedLock}: the {@link #fallbackMethod()}, else with
 * {@code onNotAcquired = SKIP} a {@code null} result, else {@link SemaphoreNotAcquiredException}; a Redis outage
 * runs the fallback, never skips. Methods returning a {@code Mono}, a {@code Flux} or a {@code CompletionStage}
 * take their permits without blocking a thread, per subscription, until the publisher ends. Bad attributes fail
 * startup, naming the method.
 */
@Target({ ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedSemaphore {

	/**
	 * Semaphore name; also the {@code semaphore} tag of the metrics.
	 * @return the name
	 */
	String name();

	/**
	 * How many permits the semaphore has: the most calls (of one permit each) that run at once across instances.
	 * @return the total, at least 1
	 */
	int permits();

	/**
	 * How many permits each call takes, for calls heavier than others on the same semaphore.
	 * @return the permits per call, at least 1 and at most {@link #permits()}
	 */
	int permitsPerCall() default 1;

	/**
	 * SpEL expression over the method parameters that selects one semaphore within the group, such as
	 * {@code "#tenant.id"}; empty for a single semaphore named {@link #name()}.
	 * @return the key expression
	 */
	String key() default "";

	/**
	 * How long to wait for permits, such as {@code "2s"}, {@code "PT2S"} or a {@code ${placeholder}}; empty for
	 * {@code redis-kit.lock.semaphore.default-wait-time}; {@code "0s"} for a single attempt.
	 * @return the wait time
	 */
	String waitTime() default "";

	/**
	 * Lease of the permits, in the same formats; empty for {@code redis-kit.lock.semaphore.default-lease-time}, and
	 * when that is unset for a lease renewed by the watchdog while the method runs.
	 * @return the lease time
	 */
	String leaseTime() default "";

	/**
	 * What a call does when no permits are acquired within the wait time and there is no
	 * {@link #fallbackMethod()}: throw {@link SemaphoreNotAcquiredException} (the default) or skip the method.
	 * {@code SKIP} is for methods returning {@code void} or an object (the call returns {@code null}), not on
	 * asynchronous methods; startup fails otherwise.
	 * @return the strategy
	 */
	OnNotAcquired onNotAcquired() default OnNotAcquired.THROW;

	/**
	 * Name of a method to run instead when no permits are acquired, on the same object with the same arguments,
	 * optionally followed by the {@link SemaphoreNotAcquiredException}; it must return what the annotated method
	 * returns. Not on asynchronous methods. Empty for none.
	 * @return the fallback method's name
	 */
	String fallbackMethod() default "";

	/** What a call does when no permits are acquired and no fallback method is given. */
	enum OnNotAcquired {

		/** Throw {@link SemaphoreNotAcquiredException}. */
		THROW,

		/**
		 * Return without running the method, silently (a debug log line; the wait is observed, and counted,
		 * as a timeout: {@code rediskit.lock.wait} of kind {@code semaphore}); an outage of Redis is still thrown.
		 */
		SKIP

	}

}
