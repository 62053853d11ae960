package io.rediskit.autoconfigure.support;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * What an annotation's interceptor resolves once per advised method and target class: the annotation, found on
 * the most specific method (else on the invoked one), and what the interceptor makes of it. The cache of
 * {@link AnnotationInterceptor}, whose startup check and first call resolve a method the same way.
 *
 * @param <A> the annotation
 * @param <R> what the interceptor resolves from it
 */
final class AnnotatedMethods<A extends Annotation, R> {

	private final Class<A> annotationType;

	private final Resolver<A, R> resolver;

	// Bounded by the advised methods and their target classes.
	private final Map<MethodClassKey, R> resolved = new ConcurrentHashMap<>();

	AnnotatedMethods(Class<A> annotationType, Resolver<A, R> resolver) {
		this.annotationType = annotationType;
		this.resolver = resolver;
	}

	/** @return the invoked method's resolution, made on its first call */
	R get(MethodInvocation invocation) {
		Method method = invocation.getMethod();
		Class<?> targetClass = (invocation.getThis() != null) ? AopUtils.getTargetClass(invocation.getThis())
				: method.getDeclaringClass();
		return this.resolved.computeIfAbsent(new MethodClassKey(method, targetClass),
				(key) -> resolve(method, targetClass));
	}

	/**
	 * Resolves a method without remembering it, as the startup check does.
	 * @throws IllegalArgumentException from the resolver, naming the method and the attribute
	 */
	R resolve(Method method, Class<?> targetClass) {
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		A annotation = AnnotatedElementUtils.findMergedAnnotation(specific, this.annotationType);
		if (annotation == null) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(method, this.annotationType);
		}
		return this.resolver.resolve(annotation, specific, targetClass);
	}

	/** Makes what an interceptor needs of one method. */
	@FunctionalInterface
	interface Resolver<A extends Annotation, R> {

		/**
		 * @param annotation the annotation, {@code null} if the method has none
		 * @param method the method as declared on the target class
		 * @param targetClass the class of the bean behind any proxy
		 */
		R resolve(@Nullable A annotation, Method method, Class<?> targetClass);

	}

}
