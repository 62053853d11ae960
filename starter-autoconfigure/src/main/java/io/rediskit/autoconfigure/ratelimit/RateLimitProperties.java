package io.rediskit.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

import io.rediskit.ratelimit.FailurePolicy;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitSpec;
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
 * Validated when bound: an out-of-range or missing value fails startup with a message that names the property.
 */
@ConfigurationProperties("redis-kit.rate-limit")
public class RateLimitProperties implements Validator {

	private static final String PREFIX = "redis-kit.rate-limit.";

	// The registry's rule: the name becomes part of Redis keys, where ':' separates it from the key.
	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");

	private static final List<String> BURST_ALGORITHMS = Arrays.stream(RateLimitAlgorithm.values())
		.filter(RateLimitAlgorithm::supportsBurst)
		.map(Enum::name)
		.toList();

	/**
	 * Whether to auto-configure the rate limiters and @RateLimited.
	 */
	private boolean enabled = true;

	/**
	 * Rate limiters by name: letters, digits, '_' and '-', at most 64 characters.
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
	 * such as {@code redis-kit.rate-limit.limiters.login}.
	 */
	@Override
	public void validate(Object target, Errors errors) {
		Limiter limiter = (Limiter) target;
		ConfigurationPropertyName bound = ConfigurationPropertyName.ofIfValid(errors.getObjectName());
		String name = (bound != null && !bound.isEmpty()) ? bound.getLastElement(Form.ORIGINAL) : errors.getObjectName();
		// Messages name the property themselves: the report names a field only when it can trace its source.
		String property = ((bound != null) ? bound.toString() : PREFIX + "limiters." + name) + ".";
		if (!NAME.matcher(name).matches()) {
			errors.reject("name", property.substring(0, property.length() - 1) + " has an invalid limiter name '"
					+ name + "': names are 1 to 64 letters, digits, '_' or '-', starting with a letter or digit");
			return;
		}
		Long limit = limiter.getLimit();
		if (limit == null) {
			errors.rejectValue("limit", "required", property + "limit is required, such as 100");
		}
		else if (limit < 1) {
			errors.rejectValue("limit", "min", property + "limit must be at least 1, was " + limit);
		}
		Duration period = limiter.getPeriod();
		if (period == null) {
			errors.rejectValue("period", "required", property + "period is required, such as 1m");
		}
		else if (period.compareTo(RateLimitSpec.MIN_PERIOD) < 0) {
			errors.rejectValue("period", "min", property + "period must be at least 1ms, was " + period);
		}
		Long burst = limiter.getBurst();
		if (burst != null) {
			if (!limiter.getAlgorithm().supportsBurst()) {
				String names = String.join(", ", BURST_ALGORITHMS.subList(0, BURST_ALGORITHMS.size() - 1)) + " and "
						+ BURST_ALGORITHMS.get(BURST_ALGORITHMS.size() - 1);
				errors.rejectValue("burst", "algorithm", property + "burst applies to " + names
						+ " only (allowed: " + String.join(", ", BURST_ALGORITHMS) + "), not to "
						+ limiter.getAlgorithm() + "; remove it or change " + property + "algorithm");
			}
			else if (burst < 1) {
				errors.rejectValue("burst", "min", property + "burst must be at least 1, was " + burst);
			}
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
		 * Permits per period, at least 1; required.
		 */
		private @Nullable Long limit;

		/**
		 * Period the limit applies to, at least 1ms; required.
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

		// The registry asks for the spec on every get(name): built once per change, not per call.
		private volatile @Nullable RateLimitSpec spec;

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
		 * The core spec these settings describe. Cheap enough for every call: built again only after a setting
		 * changed, such as when a configuration refresh rebinds the properties.
		 * @return the spec
		 * @throws IllegalStateException if {@code limit} or {@code period} is not set
		 * @throws IllegalArgumentException if a value is out of range (startup validation prevents both)
		 */
		public RateLimitSpec toSpec() {
			RateLimitSpec current = this.spec;
			if (current == null || !describes(current)) {
				Long limit = this.limit;
				Duration period = this.period;
				if (limit == null || period == null) {
					throw new IllegalStateException("A rate limiter needs both a limit and a period");
				}
				current = new RateLimitSpec(this.algorithm, limit, period, this.burst, this.failurePolicy);
				this.spec = current;
			}
			return current;
		}

		// Compared rather than invalidated by the setters: a spec built while a setter ran is never kept stale.
		private boolean describes(RateLimitSpec spec) {
			Long limit = this.limit;
			return spec.algorithm() == this.algorithm && limit != null && spec.limit() == limit
					&& spec.period().equals(this.period) && Objects.equals(spec.burst(), this.burst)
					&& spec.failurePolicy() == this.failurePolicy;
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
