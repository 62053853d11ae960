package io.rediskit.autoconfigure.ratelimit;

import java.lang.reflect.Method;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.rediskit.autoconfigure.support.AnnotationInterceptor;
import io.rediskit.autoconfigure.support.AsyncResults;
import io.rediskit.autoconfigure.support.FallbackMethod;
import io.rediskit.autoconfigure.support.MethodKeyEvaluator;
import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimitExceededException;
import io.rediskit.ratelimit.RateLimited;
import io.rediskit.ratelimit.RateLimiter;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.support.ClosestName;
import io.rediskit.support.Names;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.ReactiveAdapter;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs a {@link RateLimited @RateLimited} method only when its limiter grants the permits: it asks
 * {@link RateLimiterRegistry#get(String) registry.get(name)}{@code .tryAcquire(key, permits)}, where the key is
 * the value of the {@code key} expression (evaluated by {@link MethodKeyEvaluator}, so argument values are data)
 * or {@code ""}, one count for all calls, when there is none.
 * <p>
 * Over the limit the method does not run. With a {@code fallbackMethod}, that method runs instead, on the same
 * target object and with the same arguments, followed by the {@link RateLimitExceededException} if it takes
 * one; its result is returned and what it throws is thrown. Without one, {@link RateLimitExceededException} is
 * thrown. When Redis cannot answer, the limiter's failure policy decides as if Redis had.
 * <p>
 * {@link RateLimitedAdvisor} checks every annotated method of the application's beans at startup through
 * {@link #check(Method, Class)}: the limiter name (unless {@code redis-kit.rate-limit.check-names=false}), the
 * permits, the key expression and the fallback. At run time the annotation and the fallback of each method are
 * resolved on its first call and cached. Fallbacks are called on the target itself, not through its proxy, so
 * their own annotations do not apply.
 * <p>
 * <b>Asynchronous methods.</b> A method returning a {@link CompletionStage} or a reactive type (a {@code Mono},
 * a {@code Flux}, or any type Spring's {@code ReactiveAdapterRegistry} adapts, with Reactor on the class path)
 * is limited without blocking a thread, through {@link RateLimiter#tryAcquireAsync(String, int)}. For a
 * reactive type nothing happens when the method is called, apart from evaluating the key: each subscription
 * asks the limiter, then, when allowed, calls the method and subscribes to its publisher; so re-subscribing
 * (a {@code retry()}, a {@code repeat()}) asks again and calls the method again. For a {@link CompletionStage}
 * the limiter is asked when the method is called, and the method runs when the answer arrives. A rejection is
 * an error signal (a stage completed exceptionally) carrying {@link RateLimitExceededException}, unless a
 * fallback, which may return the same asynchronous type, answers instead. The failure policy applies as on
 * the blocking path. The method and the fallback run on the thread that delivered the answer, the Redis
 * driver's: a method that blocks must move its work elsewhere ({@code subscribeOn}, an executor).
 */
public final class RateLimitedInterceptor extends AnnotationInterceptor<RateLimited, RateLimitedInterceptor.Resolved> {

	// Looked up on the first call, not per call: the lookup costs more than the map lookups around it.
	private final SingletonSupplier<RateLimiterRegistry> registry;

	private final ObjectProvider<RateLimiterRegistry> registryProvider;

	private final boolean checkNames;

	private final Supplier<Collection<String>> configuredNames;

	/**
	 * An interceptor whose unknown-limiter failure suggests no name.
	 * @param registry where limiters come from, resolved on first use
	 * @param checkNames whether {@link #check(Method, Class)} requires the limiter a method names to exist
	 */
	public RateLimitedInterceptor(ObjectProvider<RateLimiterRegistry> registry, boolean checkNames) {
		this(registry, Set::of, checkNames);
	}

	/**
	 * @param registry where limiters come from, resolved on first use
	 * @param configuredNames the limiters configured ({@code redis-kit.rate-limit.limiters}), asked when a method
	 * names none of the registry's, for the closest to suggest
	 * @param checkNames whether {@link #check(Method, Class)} requires the limiter a method names to exist
	 */
	public RateLimitedInterceptor(ObjectProvider<RateLimiterRegistry> registry,
			Supplier<Collection<String>> configuredNames, boolean checkNames) {
		super(RateLimited.class, RateLimited::key);
		this.registryProvider = registry;
		this.registry = SingletonSupplier.of(registry::getObject);
		this.configuredNames = configuredNames;
		this.checkNames = checkNames;
	}

	/**
	 * Besides what every annotation interceptor checks at startup: a limiter that does not exist (yet: limiters
	 * created in code after startup cannot be told from a typo, which is why this check can be turned off), permits
	 * outside 1 to the limiter's capacity, a name no limiter can have.
	 */
	@Override
	protected void checkResolved(Resolved resolved, RateLimited annotation) {
		String on = resolved.description() + " on " + MethodKeyEvaluator.describe(resolved.method());
		if (annotation.permits() < 1) {
			throw new IllegalArgumentException(on + ": permits must be at least 1, was " + annotation.permits());
		}
		if (!Names.isValid(annotation.name())) {
			// No property can configure such a name (a '.' splits the property path), nor can code create it.
			String valid = annotation.name().replaceAll("[^A-Za-z0-9_-]", "-");
			throw new IllegalArgumentException(on + ": name \"" + annotation.name() + "\" can name no limiter: names"
					+ " are " + Names.RULE + (Names.isValid(valid) ? "; rename it, such as \"" + valid
							+ "\" (configured under redis-kit.rate-limit.limiters." + valid + ")" : ""));
		}
		RateLimiterRegistry registry = this.registryProvider.getIfAvailable();
		if (!this.checkNames || registry == null) {
			return;
		}
		RateLimiter limiter;
		try {
			limiter = registry.get(annotation.name());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(on + ": name \"" + annotation.name() + "\" is no limiter"
					+ ClosestName.didYouMean(annotation.name(), this.configuredNames.get()) + ": configure "
					+ "redis-kit.rate-limit.limiters." + annotation.name() + " or create it in code while the application"
					+ " starts (with RateLimiterRegistry.create); for limiters created later, turn this check off with"
					+ " redis-kit.rate-limit.check-names=false", ex);
		}
		long capacity = limiter.spec().capacity();
		if (annotation.permits() > capacity) {
			throw new IllegalArgumentException(on + ": permits " + annotation.permits()
					+ " can never be granted: the limiter's capacity is " + capacity);
		}
	}

	@Override
	protected @Nullable Object invoke(Resolved resolved, RateLimited annotation, MethodInvocation invocation)
			throws Throwable {
		Object target = invocation.getThis();
		RateLimiter limiter = this.registry.obtain().get(annotation.name());
		String evaluated = key(resolved, annotation, invocation);
		String key = (evaluated != null) ? evaluated : "";
		int permits = annotation.permits();
		if (resolved.kind() == AsyncResults.Kind.STAGE) {
			return limitStage(limiter, key, permits, resolved, target, invocation);
		}
		ReactiveAdapter adapter = (resolved.kind() == AsyncResults.Kind.REACTIVE)
				? AsyncResults.adapter(resolved.method().getReturnType()) : null;
		if (adapter != null) {
			AsyncResults.Deferred call = AsyncResults.defer(invocation);
			Object[] arguments = invocation.getArguments();
			return ReactiveRateLimiting.limit(adapter, limiter, () -> limiter.tryAcquireAsync(key, permits),
					(decision) -> decided(decision, limiter, resolved, target, arguments, call));
		}
		return decided(limiter.tryAcquire(key, permits), limiter, resolved, target, invocation.getArguments(),
				invocation::proceed);
	}

	private CompletionStage<?> limitStage(RateLimiter limiter, String key, int permits, Resolved resolved,
			@Nullable Object target, MethodInvocation invocation) {
		AsyncResults.Deferred call = AsyncResults.defer(invocation);
		Object[] arguments = invocation.getArguments();
		CompletableFuture<@Nullable Object> result = new CompletableFuture<>();
		limiter.tryAcquireAsync(key, permits).whenComplete((decision, failure) -> {
			if (failure != null) {
				result.completeExceptionally(AsyncResults.unwrap(failure));
				return;
			}
			CompletionStage<?> answer;
			try {
				answer = AsyncResults.stage(decided(decision, limiter, resolved, target, arguments, call));
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
				return;
			}
			answer.whenComplete((value, error) -> {
				if (error != null) {
					result.completeExceptionally(AsyncResults.unwrap(error));
				}
				else {
					result.complete(value);
				}
			});
		});
		return result;
	}

	/** Runs the method when allowed, else the fallback, else throws the rejection. */
	private static @Nullable Object decided(RateLimitDecision decision, RateLimiter limiter, Resolved resolved,
			@Nullable Object target, @Nullable Object[] arguments, AsyncResults.Deferred call) throws Throwable {
		if (decision.allowed()) {
			SuccessHeaders.allowed(limiter, decision);
			return call.proceed();
		}
		RateLimitExceededException exceeded = new RateLimitExceededException(limiter.name(), limiter.spec(), decision);
		FallbackMethod fallback = resolved.fallback();
		if (fallback == null) {
			throw exceeded;
		}
		return fallback.invoke(target, arguments, exceeded);
	}

	@Override
	protected Resolved resolve(@Nullable RateLimited annotation, Method specific, Class<?> targetClass) {
		if (annotation == null) {
			return new Resolved(null, specific, "", null, AsyncResults.Kind.PLAIN);
		}
		String description = "@RateLimited(name = \"" + annotation.name() + "\")";
		FallbackMethod fallback = annotation.fallbackMethod().isEmpty() ? null
				: FallbackMethod.find(annotation.fallbackMethod(), description, RateLimitExceededException.class,
						specific, targetClass);
		return new Resolved(annotation, specific, description, fallback, AsyncResults.kind(specific));
	}

	/**
	 * What the interceptor needs of one advised method, resolved once.
	 * @param annotation the annotation, {@code null} if the method has none
	 * @param method the method as declared on the target class, whose parameter names the key expression uses
	 * @param description the annotation as error messages show it
	 * @param fallback the fallback, if the annotation names one
	 * @param kind how the method returns its result
	 */
	record Resolved(@Nullable RateLimited annotation, Method method, String description,
			@Nullable FallbackMethod fallback, AsyncResults.Kind kind) implements Resolution<RateLimited> {
	}

}
