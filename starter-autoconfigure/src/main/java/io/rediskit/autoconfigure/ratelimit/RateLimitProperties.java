package io.rediskit.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.rediskit.ratelimit.FailurePolicy;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.support.Names;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Rate limiter settings, under {@code redis-kit.rate-limit}. Each entry of {@code limiters} is a limiter that
 * {@link io.rediskit.ratelimit.RateLimiterRegistry#get(String)} and {@code @RateLimited(name = ...)} find by its
 * name. The policies {@code algorithm} and {@code failure-policy} at the group's level are the defaults of every
 * limiter, and a limiter's own value wins:
 *
 * <pre>{@code
 * redis-kit:
 *   rate-limit:
 *     failure-policy: fail-closed
 *     limiters:
 *       login:
 *         algorithm: sliding-log
 *         limit: 5
 *         period: 15m
 *       search:
 *         limit: 100
 *         period: 1m
 *         failure-policy: fail-open
 * }</pre>
 *
 * Checked when the registry is built, by the rules of {@link RateLimitSpec} and {@link io.rediskit.support.Names},
 * each limiter with the defaults it inherits (a {@code burst} under an inherited {@code sliding-log}): an
 * out-of-range or missing value fails startup with a message that names the property. So does a property under
 * {@code redis-kit.rate-limit} that binds to nothing, such as one of a limiter whose name contains a dot
 * ({@code limiters: api.v1: ...} reads as limiter {@code api} with an unknown {@code v1} setting).
 */
@ConfigurationProperties(prefix = "redis-kit.rate-limit", ignoreUnknownFields = false)
public class RateLimitProperties {

	/**
	 * Whether to auto-configure the rate limiters and @RateLimited.
	 */
	private boolean enabled = true;

	/**
	 * Whether methods annotated @RateLimited run without a limit while rate limiting is off (enabled=false);
	 * when false, such a method fails startup, naming it.
	 */
	private boolean unguardedWhenDisabled;

	/**
	 * Whether startup fails when @RateLimited or a web rule names a limiter that is neither configured nor
	 * created in code while the application starts, and a gateway route naming one fails to load; turn off for
	 * limiters created in code later.
	 */
	private boolean checkNames = true;

	/**
	 * How permits are counted by every limiter that does not say: gcra or token-bucket (steady rate with bursts),
	 * sliding-log (exact), sliding-window (approximate, constant memory) or fixed-window.
	 */
	private RateLimitAlgorithm algorithm = RateLimitAlgorithm.GCRA;

	/**
	 * Answer of every limiter that does not say when Redis cannot be reached in time: fail-open allows the call,
	 * fail-closed rejects it.
	 */
	private FailurePolicy failurePolicy = FailurePolicy.FAIL_OPEN;

	/**
	 * Rate limiters by name: letters, digits, '_' and '-', at most 64 characters, no '.'.
	 */
	private Map<String, Limiter> limiters = new LinkedHashMap<>();

	/**
	 * HTTP answers to calls over their limit.
	 */
	private final Web web = new Web();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public boolean isUnguardedWhenDisabled() {
		return this.unguardedWhenDisabled;
	}

	public void setUnguardedWhenDisabled(boolean unguardedWhenDisabled) {
		this.unguardedWhenDisabled = unguardedWhenDisabled;
	}

	public boolean isCheckNames() {
		return this.checkNames;
	}

	public void setCheckNames(boolean checkNames) {
		this.checkNames = checkNames;
	}

	public RateLimitAlgorithm getAlgorithm() {
		return this.algorithm;
	}

	public void setAlgorithm(RateLimitAlgorithm algorithm) {
		this.algorithm = algorithm;
	}

	public FailurePolicy getFailurePolicy() {
		return this.failurePolicy;
	}

	public void setFailurePolicy(FailurePolicy failurePolicy) {
		this.failurePolicy = failurePolicy;
	}

	public Map<String, Limiter> getLimiters() {
		return this.limiters;
	}

	public void setLimiters(Map<String, Limiter> limiters) {
		this.limiters = limiters;
	}

	public Web getWeb() {
		return this.web;
	}

	/**
	 * One rate limiter: {@code limit} permits per {@code period}; {@code algorithm} and {@code failure-policy}
	 * unset take those of {@code redis-kit.rate-limit}.
	 */
	public static class Limiter {

		/**
		 * How permits are counted: gcra or token-bucket (steady rate with bursts), sliding-log (exact),
		 * sliding-window (approximate, constant memory) or fixed-window; unset for redis-kit.rate-limit.algorithm.
		 */
		private @Nullable RateLimitAlgorithm algorithm;

		/**
		 * Permits per period, at least 1 (and at most 2^53); required.
		 */
		private @Nullable Long limit;

		/**
		 * Period the limit applies to, from 1ms to 50 years; required.
		 */
		private @Nullable Duration period;

		/**
		 * Most permits admitted at once after a quiet spell, for gcra and token-bucket only; unset for the limit.
		 */
		private @Nullable Long burst;

		/**
		 * Answer when Redis cannot be reached in time: fail-open allows the call, fail-closed rejects it; unset for
		 * redis-kit.rate-limit.failure-policy.
		 */
		private @Nullable FailurePolicy failurePolicy;

		public @Nullable RateLimitAlgorithm getAlgorithm() {
			return this.algorithm;
		}

		public void setAlgorithm(@Nullable RateLimitAlgorithm algorithm) {
			this.algorithm = algorithm;
		}

		public @Nullable Long getLimit() {
			return this.limit;
		}

		public void setLimit(@Nullable Long limit) {
			this.limit = limit;
		}

		public @Nullable Duration getPeriod() {
			return this.period;
		}

		public void setPeriod(@Nullable Duration period) {
			this.period = period;
		}

		public @Nullable Long getBurst() {
			return this.burst;
		}

		public void setBurst(@Nullable Long burst) {
			this.burst = burst;
		}

		public @Nullable FailurePolicy getFailurePolicy() {
			return this.failurePolicy;
		}

		public void setFailurePolicy(@Nullable FailurePolicy failurePolicy) {
			this.failurePolicy = failurePolicy;
		}

	}

	/**
	 * How web applications answer {@link io.rediskit.ratelimit.RateLimitExceededException}.
	 */
	public static class Web {

		/**
		 * Order of the rule filters unless set otherwise: just after Spring Security's filter chain (-100 on both
		 * stacks), so that the principal is known, and well before the dispatcher and its controllers.
		 */
		public static final int DEFAULT_ORDER = -90;

		/**
		 * Whether to answer RateLimitExceededException with HTTP 429, Retry-After and a problem detail in web
		 * applications.
		 */
		private boolean enabled = true;

		/**
		 * The RateLimit-Policy and RateLimit headers of the IETF draft (draft-ietf-httpapi-ratelimit-headers).
		 */
		private final Headers headers = new Headers();

		/**
		 * Order of the filter that applies the rules, in the servlet filter chain and among WebFlux WebFilters:
		 * by default after Spring Security's (-100), so the principal is known, and before the controllers.
		 */
		private int order = DEFAULT_ORDER;

		/**
		 * Rate limits for routes, without an annotation; the first rule whose path and method match a request
		 * applies, and no other.
		 */
		private List<Rule> rules = new ArrayList<>();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Headers getHeaders() {
			return this.headers;
		}

		public int getOrder() {
			return this.order;
		}

		public void setOrder(int order) {
			this.order = order;
		}

		public List<Rule> getRules() {
			return this.rules;
		}

		public void setRules(List<Rule> rules) {
			this.rules = rules;
		}

	}

	/**
	 * A rate limit for the requests whose path matches {@code path} (and whose method is one of
	 * {@code methods}, if set): each asks {@code limiter} for {@code permits} under the key {@code key} names.
	 */
	public static class Rule {

		/**
		 * Path patterns of the requests the rule limits, in Spring's PathPattern syntax, such as /api/**; required.
		 */
		private List<String> path = new ArrayList<>();

		/**
		 * HTTP methods the rule limits, such as GET or POST; unset for all.
		 */
		private List<String> methods = new ArrayList<>();

		/**
		 * Name of the limiter that counts the requests: one of redis-kit.rate-limit.limiters, or one created in
		 * code while the application starts; required.
		 */
		private @Nullable String limiter;

		/**
		 * What a request is counted under: ip (the client address, as server.forward-headers-strategy resolves
		 * it), header:<Name>, principal, session, or a SpEL expression over #request such as
		 * #request.header('X-Tenant'); required. Requests without a value share one count.
		 */
		private @Nullable String key;

		/**
		 * Permits each request takes, from 1 to the limiter's capacity.
		 */
		private int permits = 1;

		public List<String> getPath() {
			return this.path;
		}

		public void setPath(List<String> path) {
			this.path = path;
		}

		public List<String> getMethods() {
			return this.methods;
		}

		public void setMethods(List<String> methods) {
			this.methods = methods;
		}

		public @Nullable String getLimiter() {
			return this.limiter;
		}

		public void setLimiter(@Nullable String limiter) {
			this.limiter = limiter;
		}

		public @Nullable String getKey() {
			return this.key;
		}

		public void setKey(@Nullable String key) {
			this.key = key;
		}

		public int getPermits() {
			return this.permits;
		}

		public void setPermits(int permits) {
			this.permits = permits;
		}

	}

	/**
	 * The RateLimit-Policy and RateLimit headers of the IETF draft (draft-ietf-httpapi-ratelimit-headers).
	 */
	public static class Headers {

		/**
		 * Whether 429 answers carry the RateLimit-Policy and RateLimit headers.
		 */
		private boolean enabled = true;

		/**
		 * Whether allowed calls of a rule or of a @RateLimited method serving the request (on its thread in Spring
		 * MVC, in its Reactor chain in WebFlux) answer with the RateLimit-Policy and RateLimit headers too.
		 */
		private boolean onSuccess = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public boolean isOnSuccess() {
			return this.onSuccess;
		}

		public void setOnSuccess(boolean onSuccess) {
			this.onSuccess = onSuccess;
		}

	}

}
