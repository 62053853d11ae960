package io.rediskit.autoconfigure.ratelimit;

import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimiter;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.ReactiveAdapter;

/**
 * The reactive side of {@link RateLimitedInterceptor}, loaded only with Reactor on the class path: the
 * decision is asked when the publisher is subscribed, once per subscription, and the method (or its
 * fallback) runs, and its publisher is subscribed, on the thread that delivered the decision.
 */
final class ReactiveRateLimiting {

	private ReactiveRateLimiting() {
	}

	/**
	 * @param adapter the adapter of the method's return type
	 * @param limiter the limiter, whose success headers an allowed decision adds to a WebFlux response that
	 * {@link ReactiveSuccessHeaders} marked
	 * @param decide asks the limiter, without blocking
	 * @param decided runs the method or the fallback for a decision, or throws the rejection
	 * @return the method's reactive type
	 */
	static Object limit(ReactiveAdapter adapter, RateLimiter limiter, Supplier<CompletionStage<RateLimitDecision>> decide,
			Decided decided) {
		Mono<RateLimitDecision> decision = Mono.deferContextual((context) -> Mono.fromCompletionStage(decide.get())
			.doOnNext((answer) -> {
				if (answer.allowed()) {
					ReactiveSuccessHeaders.allowed(limiter, answer, context);
				}
			}));
		if (adapter.isMultiValue()) {
			return adapter.fromPublisher(decision.flatMapMany((allowed) -> Flux.from(run(adapter, decided, allowed))));
		}
		return adapter.fromPublisher(decision.flatMap((allowed) -> Mono.from(run(adapter, decided, allowed))));
	}

	@SuppressWarnings("unchecked")
	private static Publisher<Object> run(ReactiveAdapter adapter, Decided decided, RateLimitDecision decision) {
		Object result;
		try {
			result = decided.run(decision);
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
		return (result != null) ? (Publisher<Object>) adapter.toPublisher(result) : Mono.empty();
	}

	/** Runs what a decision calls for. */
	@FunctionalInterface
	interface Decided {

		@Nullable Object run(RateLimitDecision decision) throws Throwable;

	}

}
