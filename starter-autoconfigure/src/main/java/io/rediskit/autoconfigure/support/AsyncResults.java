package io.rediskit.autoconfigure.support;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * How an advised method hands back its result, which decides when the advice asks Redis: a plain value (the
 * advice runs around the call, on the calling thread), a {@link CompletionStage} (the advice runs
 * asynchronously when the method is called), or a type {@link ReactiveAdapterRegistry} adapts, such as
 * Reactor's {@code Mono} and {@code Flux} (the advice runs asynchronously on each subscription).
 * <p>
 * Reactor is optional: without it only {@link CompletionStage} is asynchronous, and a type the registry would
 * adapt through Reactor is treated as a plain value. A {@link CompletionStage} return type is handled without
 * Reactor whether or not it is present; it must accept a {@link CompletableFuture}.
 */
public final class AsyncResults {

	private static final boolean reactorPresent = ClassUtils.isPresent("reactor.core.publisher.Flux",
			AsyncResults.class.getClassLoader());

	private AsyncResults() {
	}

	/**
	 * @param method the advised method
	 * @return how it returns its result
	 */
	public static Kind kind(Method method) {
		Class<?> type = method.getReturnType();
		if (CompletionStage.class.isAssignableFrom(type) && type.isAssignableFrom(CompletableFuture.class)) {
			return Kind.STAGE;
		}
		return (adapter(type) != null) ? Kind.REACTIVE : Kind.PLAIN;
	}

	/**
	 * @param type a return type
	 * @return the adapter of a reactive type, {@code null} without Reactor or for any other type
	 */
	public static @Nullable ReactiveAdapter adapter(Class<?> type) {
		if (!reactorPresent || type == Object.class) {
			return null;
		}
		return ReactiveAdapterRegistry.getSharedInstance().getAdapter(type);
	}

	/**
	 * Lets the rest of the interceptor chain and the method run later, once per subscription. A
	 * {@link ProxyMethodInvocation} (as every Spring proxy makes) is cloned for each run, so that a second
	 * subscription runs the whole chain again; any other invocation can run once.
	 * @param invocation the intercepted call
	 * @return the deferred call
	 */
	public static Deferred defer(MethodInvocation invocation) {
		if (invocation instanceof ProxyMethodInvocation proxied) {
			MethodInvocation template = proxied.invocableClone();
			return () -> ((ProxyMethodInvocation) template).invocableClone().proceed();
		}
		return invocation::proceed;
	}

	/**
	 * @param failure a failure as a stage reports it
	 * @return the failure without {@link CompletionException} wrappers
	 */
	public static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while (cause instanceof CompletionException && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	/**
	 * @param result what a method returning a {@link CompletionStage} returned
	 * @return it, or a stage completed with {@code null} when it returned {@code null}
	 */
	public static CompletionStage<?> stage(@Nullable Object result) {
		return (result != null) ? (CompletionStage<?>) result : CompletableFuture.completedFuture(null);
	}

	/** How a method hands back its result. */
	public enum Kind {

		/** A value or nothing, when the method returns. */
		PLAIN,

		/** A {@link CompletionStage}. */
		STAGE,

		/** A type {@link ReactiveAdapterRegistry} adapts, with Reactor on the class path. */
		REACTIVE

	}

	/** The rest of an intercepted call, run later. */
	@FunctionalInterface
	public interface Deferred {

		/**
		 * Runs the rest of the chain and the method.
		 * @return what the method returned
		 * @throws Throwable what it threw
		 */
		@Nullable Object proceed() throws Throwable;

	}

}
