package io.rediskit.autoconfigure.ratelimit;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.support.ClosestName;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.cloud.gateway.event.FilterArgsEvent;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.route.RouteDefinitionRouteLocator;
import org.springframework.cloud.gateway.support.ConfigurationService;

/**
 * A Spring Cloud Gateway {@code RateLimiter} on redis-kit's limiters, for the gateway's
 * {@code RequestRateLimiter} filter: each route names a limiter of
 * {@code redis-kit.rate-limit.limiters} (any of the five algorithms) and the filter's key resolver says what
 * is limited.
 *
 * <pre>{@code
 * spring.cloud.gateway.server.webflux.routes:
 *   - id: api
 *     uri: http://backend:8080
 *     predicates: [ "Path=/api/**" ]
 *     filters:
 *       - name: RequestRateLimiter
 *         args:
 *           rate-limiter: "#{@redisKitRateLimiter}"
 *           key-resolver: "#{@userKeyResolver}"
 *           redis-kit-rate-limiter.limiter: api
 *           redis-kit-rate-limiter.permits: 1
 * }</pre>
 *
 * A route without {@code redis-kit-rate-limiter.*} arguments takes those of the gateway's default filters.
 * <p>
 * Each request is one script call through {@link io.rediskit.ratelimit.RateLimiter#tryAcquireAsync(String, int)}:
 * no thread waits for Redis. The count belongs to the limiter and the key, not to the route, so routes naming
 * the same limiter share it. When Redis cannot answer within the command timeout, the limiter's failure
 * policy decides (fail-open lets the request through); any other Redis error (a wrong type at the key, a
 * missing permission) fails the request, as does a route whose limiter is not configured. A route that names a
 * limiter that does not exist when routes load fails to load, as a route with another invalid argument does,
 * with an error that names the route and suggests the closest configured limiter; with
 * {@code redis-kit.rate-limit.check-names=false} (limiters created after routes load) only its requests fail.
 * <p>
 * The response carries the headers of the gateway's own {@code RedisRateLimiter} ({@code X-RateLimit-Remaining},
 * {@code -1} when the failure policy answered, {@code X-RateLimit-Burst-Capacity} and
 * {@code X-RateLimit-Requested-Tokens}), and those of the handler of {@code @RateLimited}: {@code RateLimit-Policy}
 * and {@code RateLimit} (IETF draft, left out when the failure policy answered) and, when rejected,
 * {@code Retry-After}. {@code redis-kit-rate-limiter.headers: false} leaves them all out.
 */
public class GatewayRateLimiter extends AbstractRateLimiter<GatewayRateLimiter.Config> {

	/** The prefix of this limiter's arguments in a {@code RequestRateLimiter} filter. */
	public static final String CONFIGURATION_PROPERTY_NAME = "redis-kit-rate-limiter";

	/** Name of the header saying how many permits the key has left, as the gateway's own limiter names it. */
	public static final String REMAINING_HEADER = "X-RateLimit-Remaining";

	/** Name of the header saying the most permits a key can be granted at once. */
	public static final String BURST_CAPACITY_HEADER = "X-RateLimit-Burst-Capacity";

	/** Name of the header saying how many permits a request takes. */
	public static final String REQUESTED_TOKENS_HEADER = "X-RateLimit-Requested-Tokens";

	private final RateLimiterRegistry registry;

	private final Supplier<Collection<String>> configuredNames;

	private final boolean checkNames;

	/**
	 * A limiter whose routes must name limiters that exist when routes load, and whose unknown-limiter failure
	 * suggests no name.
	 * @param registry the limiters routes name
	 * @param configurationService binds the routes' {@code redis-kit-rate-limiter.*} arguments
	 */
	public GatewayRateLimiter(RateLimiterRegistry registry, ConfigurationService configurationService) {
		this(registry, configurationService, Set::of, true);
	}

	/**
	 * @param registry the limiters routes name
	 * @param configurationService binds the routes' {@code redis-kit-rate-limiter.*} arguments
	 * @param configuredNames the limiters configured ({@code redis-kit.rate-limit.limiters}), asked when a route
	 * names none of the registry's, for the closest to suggest
	 * @param checkNames whether a route must name a limiter that exists when routes load
	 * ({@code redis-kit.rate-limit.check-names})
	 */
	public GatewayRateLimiter(RateLimiterRegistry registry, ConfigurationService configurationService,
			Supplier<Collection<String>> configuredNames, boolean checkNames) {
		super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.configuredNames = Objects.requireNonNull(configuredNames, "configuredNames must not be null");
		this.checkNames = checkNames;
	}

	/**
	 * Binds a route's arguments and checks them, so that a route without a limiter, or (unless names are not
	 * checked) naming one that does not exist, fails when routes load, as the gateway fails a route with any other
	 * invalid argument: the error names the route and the argument and, for a name one typo from a configured
	 * limiter's, that limiter.
	 * @param event the arguments of one filter of one route
	 */
	@Override
	public void onApplicationEvent(FilterArgsEvent event) {
		super.onApplicationEvent(event);
		String routeId = event.getRouteId();
		Config config = getConfig().get(routeId);
		if (config == null) {
			return;
		}
		String limiter = config.check(routeId);
		if (!this.checkNames) {
			return;
		}
		try {
			this.registry.get(limiter);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Route '" + routeId + "': " + CONFIGURATION_PROPERTY_NAME
					+ ".limiter names \"" + limiter + "\", which is no limiter"
					+ ClosestName.didYouMean(limiter, this.configuredNames.get()) + ": configure"
					+ " redis-kit.rate-limit.limiters." + limiter + " or create it in code while the application starts"
					+ " (for limiters created later, turn this check off with redis-kit.rate-limit.check-names=false)",
					ex);
		}
	}

	/**
	 * Asks the route's limiter for the route's permits for one key.
	 * @param routeId the route
	 * @param id the key the filter's key resolver gave
	 * @return the decision and its headers; an error when the route has no limiter or Redis answers with an
	 * error that is not an outage
	 */
	@Override
	public Mono<Response> isAllowed(String routeId, String id) {
		return Mono.defer(() -> {
			Config config = configOf(routeId);
			io.rediskit.ratelimit.RateLimiter limiter = this.registry.get(config.requireLimiter(routeId));
			RateLimitSpec spec = limiter.spec();
			return Mono.fromCompletionStage(limiter.tryAcquireAsync(id, config.getPermits()))
				.map((decision) -> new Response(decision.allowed(), headers(config, limiter.name(), spec, decision)));
		});
	}

	private Config configOf(String routeId) {
		Config config = getConfig().get(routeId);
		if (config == null) {
			config = getConfig().get(RouteDefinitionRouteLocator.DEFAULT_FILTERS);
		}
		if (config == null) {
			throw new IllegalArgumentException("Route '" + routeId + "' names no redis-kit rate limiter: give its "
					+ "RequestRateLimiter filter the argument " + CONFIGURATION_PROPERTY_NAME + ".limiter");
		}
		return config;
	}

	private static Map<String, String> headers(Config config, String name, RateLimitSpec spec,
			RateLimitDecision decision) {
		Map<String, String> headers = new LinkedHashMap<>();
		if (!config.isHeaders()) {
			return headers;
		}
		headers.put(REMAINING_HEADER, decision.fromFailurePolicy() ? "-1" : Long.toString(decision.remaining()));
		headers.put(BURST_CAPACITY_HEADER, Long.toString(spec.capacity()));
		headers.put(REQUESTED_TOKENS_HEADER, Integer.toString(config.getPermits()));
		// The fields of RateLimitExceptionHandler, so that gateway and application answers read alike.
		RateLimitRules.addHeaders(headers::put, name, spec, decision);
		if (!decision.allowed()) {
			headers.put("Retry-After",
					Long.toString(Math.max(1, RateLimitExceptionHandler.ceilSeconds(decision.retryAfter()))));
		}
		return headers;
	}



	/**
	 * The {@code redis-kit-rate-limiter.*} arguments of one route's {@code RequestRateLimiter} filter.
	 */
	public static class Config {

		private @Nullable String limiter;

		private int permits = 1;

		private boolean headers = true;

		/** @return the name of the limiter under {@code redis-kit.rate-limit.limiters}, or one created in code */
		public @Nullable String getLimiter() {
			return this.limiter;
		}

		/** @param limiter the name of the limiter */
		public void setLimiter(@Nullable String limiter) {
			this.limiter = limiter;
		}

		/** @return how many permits one request takes, 1 unless set */
		public int getPermits() {
			return this.permits;
		}

		/** @param permits how many permits one request takes, from 1 to the limiter's capacity */
		public void setPermits(int permits) {
			this.permits = permits;
		}

		/** @return whether responses carry the rate-limit headers */
		public boolean isHeaders() {
			return this.headers;
		}

		/** @param headers whether responses carry the rate-limit headers */
		public void setHeaders(boolean headers) {
			this.headers = headers;
		}

		String requireLimiter(String routeId) {
			if (this.limiter == null || this.limiter.isBlank()) {
				throw new IllegalArgumentException("Route '" + routeId + "' names no redis-kit rate limiter: set "
						+ CONFIGURATION_PROPERTY_NAME + ".limiter");
			}
			return this.limiter;
		}

		String check(String routeId) {
			String limiter = requireLimiter(routeId);
			if (this.permits < 1) {
				throw new IllegalArgumentException("Route '" + routeId + "': " + CONFIGURATION_PROPERTY_NAME
						+ ".permits must be at least 1, was " + this.permits);
			}
			return limiter;
		}

		@Override
		public String toString() {
			return "Config{limiter=" + this.limiter + ", permits=" + this.permits + ", headers=" + this.headers + "}";
		}

	}

}
