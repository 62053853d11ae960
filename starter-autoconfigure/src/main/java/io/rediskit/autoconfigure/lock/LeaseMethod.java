package io.rediskit.autoconfigure.lock;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.time.Duration;

import io.rediskit.autoconfigure.support.AnnotationInterceptor;
import io.rediskit.autoconfigure.support.AsyncResults;
import io.rediskit.autoconfigure.support.FallbackMethod;
import org.jspecify.annotations.Nullable;

/**
 * What the interceptor of an annotation that holds a lease of the lock family while the method runs
 * ({@code @DistributedLock}, {@code @DistributedSemaphore}) resolves of one advised method, once: the same for
 * each, so written once.
 *
 * @param annotation the annotation, {@code null} if the method has none
 * @param method the method as declared on the target class, whose parameter names the key expression uses
 * @param description the annotation as error messages show it
 * @param waitTime the wait, {@code null} for the registry's default
 * @param leaseTime the lease, {@code null} for the registry's default
 * @param kind how the method returns its result
 * @param fallback the fallback, if the annotation names one
 * @param <A> the annotation
 */
record LeaseMethod<A extends Annotation>(@Nullable A annotation, Method method, String description,
		@Nullable Duration waitTime, @Nullable Duration leaseTime, AsyncResults.Kind kind,
		@Nullable FallbackMethod fallback) implements AnnotationInterceptor.Resolution<A> {

	/** @return the resolution of a method without the annotation */
	static <A extends Annotation> LeaseMethod<A> none(Method method) {
		return new LeaseMethod<>(null, method, "", null, null, AsyncResults.Kind.PLAIN, null);
	}

}
