package io.rediskit.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.rediskit.autoconfigure.ratelimit.RateLimitProperties.Limiter;
import io.rediskit.autoconfigure.support.PropertyChecks;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.support.ConfiguredSpecs;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.Names;

/**
 * The limiters of {@code redis-kit.rate-limit.limiters} as specs, each over the group's {@code algorithm} and
 * {@code failure-policy}: what the auto-configured {@link io.rediskit.ratelimit.RateLimiterRegistry} serves, for an
 * application that defines a registry of its own and keeps the configured limiters:
 *
 * <pre>{@code
 * new RateLimiterRegistry(scripts, connectionFactory, keyNaming, listeners, RateLimitSpecs.configured(properties));
 * }</pre>
 */
public final class RateLimitSpecs {

	private static final String PREFIX = "redis-kit.rate-limit.";

	private RateLimitSpecs() {
	}

	/**
	 * Checks every configured limiter, then answers a name with its spec, built from the properties on each call
	 * (a configuration refresh that rebinds them applies to the next lookup).
	 * @param properties the bound settings
	 * @return the spec of a configured limiter by name, {@code null} for a name not configured; the configured
	 * names, the closest of which an unknown name's error suggests
	 * @throws io.rediskit.autoconfigure.support.InvalidPropertiesException naming every property at fault: a
	 * missing {@code limit} or {@code period}, an invalid name, a value out of range, a combination with an
	 * inherited default the algorithm does not take
	 */
	public static ConfiguredSpecs<RateLimitSpec> configured(RateLimitProperties properties) {
		PropertyChecks checks = new PropertyChecks();
		Map<String, Limiter> complete = new LinkedHashMap<>();
		properties.getLimiters().forEach((name, limiter) -> {
			String property = PREFIX + "limiters." + name + ".";
			if (Names.isValid(name) && limiter.getLimit() == null) {
				checks.reject(property + "limit", null, property + "limit is required, such as 100");
			}
			if (Names.isValid(name) && limiter.getPeriod() == null) {
				checks.reject(property + "period", null, property + "period is required, such as 1m");
			}
			if (!Names.isValid(name) || (limiter.getLimit() != null && limiter.getPeriod() != null)) {
				complete.put(name, limiter);
			}
		});
		checks.entries(properties, PREFIX, "limiters", "limiter", complete, (limiter) -> spec(limiter, properties),
				(limiter, failure) -> (limiter.getAlgorithm() == null && "burst".equals(failure.getComponent()))
						? "whose algorithm is redis-kit.rate-limit.algorithm" : null);
		checks.throwIfInvalid();
		return ConfiguredSpecs.of(properties::getLimiters, (limiter) -> spec(limiter, properties));
	}

	private static RateLimitSpec spec(Limiter limiter, RateLimitProperties defaults) {
		Long limit = limiter.getLimit();
		Duration period = limiter.getPeriod();
		if (limit == null || period == null) {
			// Only after a refresh: startup checks every limiter.
			throw new InvalidSpecException((limit == null) ? "limit" : "period", "is required");
		}
		return new RateLimitSpec((limiter.getAlgorithm() != null) ? limiter.getAlgorithm() : defaults.getAlgorithm(),
				limit, period, limiter.getBurst(),
				(limiter.getFailurePolicy() != null) ? limiter.getFailurePolicy() : defaults.getFailurePolicy());
	}

}
