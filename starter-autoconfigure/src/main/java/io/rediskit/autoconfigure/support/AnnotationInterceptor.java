package io.rediskit.autoconfigure.support;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.function.Function;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertyResolver;
import org.springframework.core.env.PropertySourcesPropertyResolver;

/**
 * What every annotation interceptor of redis-kit does the same way, written once: find the annotation on the
 * advised method and resolve what the interceptor needs of it once per method and target class (the startup check
 * and the first call resolve alike), check the key expression at startup, evaluate it as data on each call, parse
 * durations (placeholders resolved, bounded), and let a method without the annotation through untouched. A
 * subclass resolves its annotation ({@link #resolve}), adds its own startup checks ({@link #checkResolved}) and
 * says what a call does ({@link #invoke(Resolution, MethodInvocation)}).
 * <p>
 * {@code @DistributedLock}, {@code @DistributedSemaphore}, {@code @ScheduledLock} and {@code @RateLimited} are
 * advised this way.
 *
 * @param <A> the annotation
 * @param <R> what the interceptor resolves of one advised method
 */
public abstract class AnnotationInterceptor<A extends Annotation, R extends AnnotationInterceptor.Resolution<A>>
		implements MethodInterceptor {

	private final MethodKeyEvaluator keys = new MethodKeyEvaluator();

	private final AnnotationDurations durations;

	private final Function<A, String> keyExpression;

	private final AnnotatedMethods<A, R> methods;

	/**
	 * For an annotation without duration attributes.
	 * @param annotationType the annotation advised methods carry
	 * @param keyExpression the annotation's key expression, empty for none
	 */
	protected AnnotationInterceptor(Class<A> annotationType, Function<A, String> keyExpression) {
		// No duration attribute to resolve placeholders in: a resolver over no property source.
		this(annotationType, keyExpression, new PropertySourcesPropertyResolver(new MutablePropertySources()));
	}

	/**
	 * @param annotationType the annotation advised methods carry
	 * @param keyExpression the annotation's key expression, empty for none
	 * @param placeholders resolves placeholders in duration attributes
	 */
	protected AnnotationInterceptor(Class<A> annotationType, Function<A, String> keyExpression,
			PropertyResolver placeholders) {
		this.keyExpression = keyExpression;
		this.durations = new AnnotationDurations(placeholders);
		this.methods = new AnnotatedMethods<>(annotationType, this::resolve);
	}

	/**
	 * Checks an annotated method as {@link #invoke(MethodInvocation)} would find it, so that what would fail every
	 * call fails startup instead: what resolving the annotation refuses (durations, names, a fallback that does not
	 * match), a key expression that does not parse or names no parameter, and what the subclass checks besides
	 * ({@link #checkResolved}).
	 * @param method the annotated method, as declared on the target class
	 * @param targetClass the class of the bean behind any proxy
	 * @throws IllegalArgumentException or {@link IllegalStateException} naming the method and the attribute
	 */
	public final void check(Method method, Class<?> targetClass) {
		R resolved = this.methods.resolve(method, targetClass);
		A annotation = resolved.annotation();
		if (annotation == null) {
			return;
		}
		String key = this.keyExpression.apply(annotation);
		if (!key.isEmpty()) {
			this.keys.check(key, resolved.method(), resolved.description());
		}
		checkResolved(resolved, annotation);
	}

	@Override
	public final @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		R resolved = this.methods.get(invocation);
		A annotation = resolved.annotation();
		if (annotation == null) {
			return invocation.proceed();
		}
		return invoke(resolved, annotation, invocation);
	}

	/**
	 * Resolves what the interceptor needs of one method, once; checks what can be checked without other beans.
	 * @param annotation the annotation, {@code null} if the method has none (then only the method is needed)
	 * @param method the method as declared on the target class
	 * @param targetClass the class of the bean behind any proxy
	 * @return the resolution
	 * @throws IllegalArgumentException naming the method and the attribute
	 */
	protected abstract R resolve(@Nullable A annotation, Method method, Class<?> targetClass);

	/**
	 * The startup checks of a subclass beyond the key expression; none by default.
	 * @param resolved the method's resolution
	 * @param annotation its annotation
	 * @throws IllegalArgumentException or {@link IllegalStateException} naming the method and the attribute
	 */
	protected void checkResolved(R resolved, A annotation) {
	}

	/**
	 * One call of an annotated method.
	 * @param resolved the method's resolution
	 * @param annotation its annotation
	 * @param invocation the call
	 * @return what the call returns
	 * @throws Throwable what the method, its fallback or the guard throws
	 */
	protected abstract @Nullable Object invoke(R resolved, A annotation, MethodInvocation invocation)
			throws Throwable;

	/**
	 * The value of the annotation's key expression for one call, evaluated as data.
	 * @return the key, or {@code null} when the annotation has no key expression
	 */
	protected final @Nullable String key(R resolved, A annotation, MethodInvocation invocation) {
		String expression = this.keyExpression.apply(annotation);
		return expression.isEmpty() ? null
				: this.keys.evaluate(expression, resolved.method(), invocation.getArguments(), resolved.description());
	}

	/**
	 * A duration attribute.
	 * @param text the attribute's value, empty for none
	 * @param attribute its name, for the message
	 * @param description the annotation as messages show it
	 * @param method the annotated method
	 * @param max the longest duration allowed
	 * @return the duration, or {@code null} when the attribute is empty
	 * @throws IllegalArgumentException naming the method and the attribute
	 */
	protected final @Nullable Duration duration(String text, String attribute, String description, Method method,
			Duration max) {
		return text.isEmpty() ? null : this.durations.parse(text, attribute, description, method, max);
	}

	/**
	 * A duration attribute that must be given: empty text fails as any other text that is not a duration.
	 * @return the duration
	 * @throws IllegalArgumentException naming the method and the attribute
	 */
	protected final Duration requiredDuration(String text, String attribute, String description, Method method,
			Duration max) {
		return this.durations.parse(text, attribute, description, method, max);
	}

	/**
	 * What every interceptor resolves of an advised method.
	 *
	 * @param <A> the annotation
	 */
	public interface Resolution<A extends Annotation> {

		/** @return the annotation, {@code null} if the method has none */
		@Nullable A annotation();

		/** @return the method as declared on the target class, whose parameter names the key expression uses */
		Method method();

		/** @return the annotation as error messages show it */
		String description();

	}

}
