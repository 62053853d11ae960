package io.rediskit.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.rediskit.ratelimit.FailurePolicy;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.autoconfigure.support.SpecErrors;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.Names;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Rate limiter settings, under {@code redis-kit.rate-limit}. Each entry of {@code limiters} is a limiter that
 * {@link io.rediskit.ratelimit.RateLimiterRegistry#get(String)} and {@code @RateLimited(name = ...)} find by its
 * name:
 *
 * <pre>{@code
 * redis-kit:
 *   rate-limit:
 *     limiters:
 *       login:
 *         algorithm: sliding-log
 *         limit: 5
 *         period: 15m
 *         failure-policy: fail-closed
 * }</pre>
 *
 * Validated when bound, by the rules of {@link RateLimitSpec} and {@link Names}: an out-of-range or missing
 * value fails startup with a message that names the property. So does a property under
 * {@code redis-kit.rate-limit} that binds to nothing, such as one of a limiter whose name contains a dot
 * ({@code limiters: api.v1: ...} reads as limiter {@code api} with an unknown {@code v1} setting).
 */
@ConfigurationProperties(prefix = "redis-kit.rate-limit", ignoreUnknownFields = false)
public class RateLimitProperties implements Validator {

	private static final String PREFIX = "redis-kit.rate-limit.";

	/**
	 * Whether to auto-configure the rate limiters and @RateLimited.
	 */
	private boolean enabled = true;

	/**
	 * Whether startup fails when @RateLimited names a limiter that is neither configured nor created in code
	 * while the application starts; turn off for limiters created in code later.
	 */
	private boolean checkNames = true;

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

	public boolean isCheckNames() {
		return this.checkNames;
	}

	public void setCheckNames(boolean checkNames) {
		this.checkNames = checkNames;
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
	 * Validates each limiter as it is bound, so that failures name the limiter's own properties and their
	 * origin (file and line).
	 */
	@Override
	public boolean supports(Class<?> type) {
		return Limiter.class.isAssignableFrom(type);
	}

	/**
	 * Validates a limiter bound by Spring Boot, whose binder names the errors after the limiter's property,
	 * such as {@code redis-kit.rate-limit.limiters.login}: the name by {@link Names}, the presence of the
	 * required values here, their ranges by {@link RateLimitSpec}'s constructor.
	 */
	@Override
	public void validate(Object target, Errors errors) {
		Limiter limiter = (Limiter) target;
		ConfigurationPropertyName bound = ConfigurationPropertyName.ofIfValid(errors.getObjectName());
		String name = (bound != null && !bound.isEmpty()) ? bound.getLastElement(Form.ORIGINAL) : errors.getObjectName();
		// Messages name the property themselves: the report names a field only when it can trace its source.
		String property = ((bound != null) ? bound.toString() : PREFIX + "limiters." + name) + ".";
		if (!Names.isValid(name)) {
			errors.reject("name", property.substring(0, property.length() - 1) + " has an invalid limiter name '"
					+ name + "': names are " + Names.RULE);
			return;
		}
		if (limiter.getLimit() == null) {
			errors.rejectValue("limit", "required", property + "limit is required, such as 100");
		}
		if (limiter.getPeriod() == null) {
			errors.rejectValue("period", "required", property + "period is required, such as 1m");
		}
		if (errors.hasErrors()) {
			return;
		}
		try {
			limiter.toSpec();
		}
		catch (InvalidSpecException ex) {
			SpecErrors.reject(errors, property, ex);
		}
	}

	/**
	 * One rate limiter: {@code limit} permits per {@code period}.
	 */
	public static class Limiter {

		/**
		 * How permits are counted: gcra or token-bucket (steady rate with bursts), sliding-log (exact),
		 * sliding-window (approximate, constant memory) or fixed-window.
		 */
		private RateLimitAlgorithm algorithm = RateLimitAlgorithm.GCRA;

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
		 * Answer when Redis cannot be reached in time: fail-open allows the call, fail-closed rejects it.
		 */
		private FailurePolicy failurePolicy = FailurePolicy.FAIL_OPEN;

		public RateLimitAlgorithm getAlgorithm() {
			return this.algorithm;
		}

		public void setAlgorithm(RateLimitAlgorithm algorithm) {
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

		public FailurePolicy getFailurePolicy() {
			return this.failurePolicy;
		}

		public void setFailurePolicy(FailurePolicy failurePolicy) {
			this.failurePolicy = failurePolicy;
		}

		/**
		 * The core spec these settings describe, built anew on each call: these properties are data, and the
		 * registry keeps the limiter.
		 * @return the spec
		 * @throws IllegalStateException if {@code limit} or {@code period} is not set
		 * @throws InvalidSpecException if a value is out of range (startup validation prevents both)
		 */
		public RateLimitSpec toSpec() {
			Long limit = this.limit;
			Duration period = this.period;
			if (limit == null || period == null) {
				throw new IllegalStateException("A rate limiter needs both a limit and a period");
			}
			return new RateLimitSpec(this.algorithm, limit, period, this.burst, this.failurePolicy);
		}

	}

	/**
	 * How web applications answer {@link io.rediskit.ratelimit.RateLimitExceededException}.
	 */
	public static class Web {

		/**
		 * Whether to answer RateLimitExceededException with HTTP 429, Retry-After and a problem detail in web
		 * applications.
		 */
		private boolean enabled = true;

		/**
		 * Whether 429 answers carry the RateLimit-Policy and RateLimit headers of the IETF draft
		 * (draft-ietf-httpapi-ratelimit-headers).
		 */
		private boolean headers = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public boolean isHeaders() {
			return this.headers;
		}

		public void setHeaders(boolean headers) {
			this.headers = headers;
		}

	}

}
