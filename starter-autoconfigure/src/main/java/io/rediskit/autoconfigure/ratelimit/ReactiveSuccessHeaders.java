package io.rediskit.autoconfigure.ratelimit;

import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimiter;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

import org.springframework.http.server.reactive.ServerHttpResponse;

/**
 * The success headers of rate-limited calls in WebFlux: {@link ReactiveRateLimitRuleFilter} puts the response
 * into the Reactor context of the rest of the chain when {@code redis-kit.rate-limit.web.headers.on-success} is
 * on, and code that decides inside that chain (a reactive {@code @RateLimited} interceptor) hands each allowed
 * decision to {@link #allowed(RateLimiter, RateLimitDecision, ContextView)}, which adds the limiter's
 * {@code RateLimit-Policy} and {@code RateLimit} unless the response is already committed.
 */
public final class ReactiveSuccessHeaders {

	private static final Class<?> KEY = ReactiveSuccessHeaders.class;

	private ReactiveSuccessHeaders() {
	}

	static Context enable(Context context, ServerHttpResponse response) {
		return context.put(KEY, response);
	}

	/**
	 * Adds the success headers of an allowed decision to the response of the request whose chain the context
	 * belongs to, if the rule filter marked it.
	 * @param limiter the limiter of an allowed call
	 * @param decision its decision
	 * @param context the Reactor context the call was decided in
	 */
	public static void allowed(RateLimiter limiter, RateLimitDecision decision, ContextView context) {
		Object response = context.getOrDefault(KEY, null);
		if (response instanceof ServerHttpResponse http && !http.isCommitted()) {
			RateLimitRules.addHeaders(http.getHeaders()::add, limiter, decision);
		}
	}

}
