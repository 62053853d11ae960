package io.rediskit.autoconfigure.ratelimit;

import java.net.InetSocketAddress;
import java.security.Principal;

import io.rediskit.autoconfigure.ratelimit.RateLimitRules.Rejection;
import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimiter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.Ordered;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Applies {@code redis-kit.rate-limit.web.rules} in WebFlux applications: a {@link WebFilter} ordered by
 * {@code redis-kit.rate-limit.web.order} (by default after Spring Security's filter chain, -100). It never
 * blocks: the key comes from the exchange (the principal and session as the exchange publishes them), the
 * decision from {@link RateLimiter#tryAcquireAsync(String, int)}, and the rest of the chain runs when the decision
 * arrives, on the thread that completed it (the Redis driver's). Over the limit the request is answered
 * {@code 429} as {@link RateLimitExceptionHandler} answers a {@code @RateLimited} method; when Redis cannot answer,
 * the limiter's failure policy decides.
 * <p>
 * The {@code ip} key is the request's remote address: Reactor Netty's (with
 * {@code server.forward-headers-strategy=native}) or Spring's {@code ForwardedHeaderTransformer}'s (with
 * {@code framework}) reading of the forwarded headers, else the connection's peer; this filter never reads
 * {@code X-Forwarded-For} itself.
 * <p>
 * Once the application's singletons exist, it opens the shared Redis connection, so that the first request does
 * not connect on a server thread; if Redis cannot be reached then, the first request connects (and the
 * failure policy applies while it cannot).
 */
final class ReactiveRateLimitRuleFilter implements WebFilter, Ordered, SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(ReactiveRateLimitRuleFilter.class);

	private final RateLimitRules rules;

	private final int order;

	private final RedisConnectionFactory connectionFactory;

	ReactiveRateLimitRuleFilter(RateLimitRules rules, int order, RedisConnectionFactory connectionFactory) {
		this.rules = rules;
		this.order = order;
		this.connectionFactory = connectionFactory;
	}

	@Override
	public int getOrder() {
		return this.order;
	}

	@Override
	public void afterSingletonsInstantiated() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			logger.debug("Opened the Redis connection for rate-limit rules");
		}
		catch (RuntimeException ex) {
			logger.warn("Cannot reach Redis for rate-limit rules yet; the first request will connect: " + ex);
		}
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		ServerHttpRequest request = exchange.getRequest();
		PathContainer path = request.getPath().pathWithinApplication();
		RateLimitRule rule = this.rules.match(request.getMethod().name(), path);
		if (rule == null) {
			return successHeaders(chain.filter(exchange), exchange);
		}
		RateLimiter limiter = this.rules.limiter(rule);
		Mono<Void> decided = key(rule.key(), exchange, path)
			.flatMap((key) -> Mono.fromCompletionStage(() -> limiter.tryAcquireAsync(key, rule.permits())))
			.flatMap((decision) -> {
				if (!decision.allowed()) {
					return reject(exchange, limiter, decision);
				}
				this.rules.addSuccessHeaders(exchange.getResponse().getHeaders()::add, limiter, decision);
				return chain.filter(exchange);
			});
		return successHeaders(decided, exchange);
	}

	// Lets limiters asked further down the chain add their success headers (ReactiveSuccessHeaders).
	private Mono<Void> successHeaders(Mono<Void> chain, ServerWebExchange exchange) {
		if (!this.rules.headersOnSuccess()) {
			return chain;
		}
		return chain.contextWrite((context) -> ReactiveSuccessHeaders.enable(context, exchange.getResponse()));
	}

	private Mono<Void> reject(ServerWebExchange exchange, RateLimiter limiter, RateLimitDecision decision) {
		ServerHttpResponse response = exchange.getResponse();
		Rejection rejection = this.rules.reject(limiter, decision, exchange.getRequest().getPath().value());
		response.setStatusCode(HttpStatus.TOO_MANY_REQUESTS);
		response.getHeaders().addAll(rejection.headers());
		return response.writeWith(Mono.just(response.bufferFactory().wrap(rejection.body())));
	}

	private static Mono<String> key(RequestKey key, ServerWebExchange exchange, PathContainer path) {
		ServerHttpRequest request = exchange.getRequest();
		Mono<String> value;
		if (key instanceof RequestKey.Header header) {
			value = Mono.justOrEmpty(request.getHeaders().getFirst(header.name()));
		}
		else if (key instanceof RequestKey.Principal) {
			value = exchange.getPrincipal().map(Principal::getName);
		}
		else if (key instanceof RequestKey.Session) {
			// A session not started is one this request would create: it has none yet.
			value = exchange.getSession().filter((session) -> session.isStarted()).map((session) -> session.getId());
		}
		else if (key instanceof RequestKey.Spel spel) {
			value = Mono.fromSupplier(() -> spel.evaluate(new RuleRequest(request.getMethod().name(), path.value(),
					ip(request), (name) -> request.getHeaders().getFirst(name),
					(name) -> request.getQueryParams().getFirst(name))));
		}
		else {
			value = Mono.just(ip(request));
		}
		return value.filter((text) -> !text.isEmpty()).defaultIfEmpty(RequestKey.MISSING);
	}

	private static String ip(ServerHttpRequest request) {
		InetSocketAddress remote = request.getRemoteAddress();
		if (remote == null) {
			return "";
		}
		return (remote.getAddress() != null) ? remote.getAddress().getHostAddress() : remote.getHostString();
	}

}
