package io.rediskit.ratelimit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Admits calls of the annotated method only within a rate limit. With the redis-kit Spring Boot starter, any
 * Spring bean method can carry it:
 *
 * <pre>{@code
 * @RateLimited(name = "login", key = "#request.username")
 * public Session login(LoginRequest request) { ... }
 * }</pre>
 *
 * {@code name} is a limiter of the {@link RateLimiterRegistry}, usually configured under
 * {@code redis-kit.rate-limit.limiters.<name>}. The key is a SpEL expression over the method's parameters (by
 * name, or as {@code #p0}, {@code #a0}); its value is data: it is never evaluated again, it cannot change the
 * hash slot of other keys, and long values are hashed to a bounded length. Type references, bean references and
 * constructors are not available in the expression. Over the limit the method does not run: the
 * {@link #fallbackMethod()} runs instead if there is one, else {@link RateLimitExceededException} is thrown.
 * <p>
 * On a method returning a {@code Mono}, a {@code Flux}, a {@code CompletionStage} or another reactive type, the
 * limiter is asked without blocking a thread: on each subscription (for a {@code CompletionStage}, when the
 * method is called), and a rejection is an error signal carrying {@link RateLimitExceededException}; the
 * fallback may return the same type.
 */
@Target({ ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RateLimited {

	/**
	 * Limiter name; also the {@code limiter} tag of the metrics.
	 * @return the name
	 */
	String name();

	/**
	 * SpEL expression over the method parameters that selects what is limited, such as
	 * {@code "#request.username"}; empty for one limit shared by all calls.
	 * @return the key expression
	 */
	String key() default "";

	/**
	 * Permits one call takes.
	 * @return the permits, at least 1
	 */
	int permits() default 1;

	/**
	 * Name of a method of the same bean to call instead when the limit is exceeded. It takes the same
	 * parameters, optionally followed by a {@link RateLimitExceededException} (or a supertype), and returns a
	 * type assignable to the annotated method's. Empty to throw {@link RateLimitExceededException}.
	 * @return the fallback method's name
	 */
	String fallbackMethod() default "";

}
