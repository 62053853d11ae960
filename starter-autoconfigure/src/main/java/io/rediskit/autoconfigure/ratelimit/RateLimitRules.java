package io.rediskit.autoconfigure.ratelimit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import io.rediskit.autoconfigure.support.InvalidPropertiesException;
import io.rediskit.autoconfigure.support.InvalidPropertiesException.Violation;
import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimitExceededException;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimiter;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.support.ClosestName;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.PathContainer;

/**
 * The rules of {@code redis-kit.rate-limit.web.rules}, as the servlet filter and the WebFlux filter apply them:
 * the <em>first</em> rule whose methods and path patterns match a request is the one that applies, and no other
 * (as in Spring Security's request matchers: list specific rules before general ones). One rule, so one Redis
 * call, per request.
 * <p>
 * Once the application's singletons exist, checks that each rule's limiter exists (unless
 * {@code redis-kit.rate-limit.check-names=false}) and can grant its permits, failing startup with a failure
 * analysis naming each rule's property at fault ({@code rules[n].limiter}, {@code rules[n].permits}).
 */
final class RateLimitRules implements SmartInitializingSingleton {

	private static final JsonMapper json = JsonMapper.builder().build();

	private final List<RateLimitRule> rules;

	private final ObjectProvider<RateLimiterRegistry> registry;

	private final Collection<String> configuredNames;

	private final boolean checkNames;

	private final boolean rateLimitHeaders;

	private final boolean headersOnSuccess;

	/**
	 * @param rules the rules, in order
	 * @param registry where the limiters come from
	 * @param configuredNames the limiters configured, the closest of which a rule naming none is told of
	 * @param checkNames whether startup fails when a rule's limiter does not exist
	 * @param rateLimitHeaders whether rejections carry {@code RateLimit-Policy} and {@code RateLimit}
	 * @param headersOnSuccess whether allowed requests carry them
	 */
	RateLimitRules(List<RateLimitRule> rules, ObjectProvider<RateLimiterRegistry> registry,
			Collection<String> configuredNames, boolean checkNames, boolean rateLimitHeaders,
			boolean headersOnSuccess) {
		this.rules = rules;
		this.registry = registry;
		this.configuredNames = configuredNames;
		this.checkNames = checkNames;
		this.rateLimitHeaders = rateLimitHeaders;
		this.headersOnSuccess = headersOnSuccess;
	}

	/**
	 * Checks every rule against the limiters that exist now, and fails startup with one
	 * {@link InvalidPropertiesException} listing each rule's property at fault.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		RateLimiterRegistry registry = this.registry.getObject();
		List<Violation> violations = new ArrayList<>();
		for (RateLimitRule rule : this.rules) {
			RateLimiter limiter;
			try {
				limiter = registry.get(rule.limiter());
			}
			catch (IllegalArgumentException ex) {
				if (this.checkNames) {
					violations.add(new Violation(rule.property() + ".limiter", rule.limiter(), rule.property()
							+ ".limiter names \"" + rule.limiter() + "\", which is no limiter"
							+ ClosestName.didYouMean(rule.limiter(), this.configuredNames) + ": configure"
							+ " redis-kit.rate-limit.limiters." + rule.limiter() + " or create it in code while the"
							+ " application starts (for limiters created later, turn this check off with"
							+ " redis-kit.rate-limit.check-names=false)"));
				}
				continue;
			}
			long capacity = limiter.spec().capacity();
			if (rule.permits() > capacity) {
				violations.add(new Violation(rule.property() + ".permits", Integer.toString(rule.permits()),
						rule.property() + ".permits " + rule.permits() + " can never be granted: the capacity of limiter"
								+ " \"" + rule.limiter() + "\" is " + capacity + "; ask for 1 to " + capacity));
			}
		}
		if (!violations.isEmpty()) {
			throw new InvalidPropertiesException(violations);
		}
	}

	/** @return whether allowed requests carry the rate-limit headers */
	boolean headersOnSuccess() {
		return this.headersOnSuccess;
	}

	/**
	 * @param method the request's method
	 * @param path its path within the application
	 * @return the first rule that matches, or {@code null}
	 */
	@Nullable RateLimitRule match(String method, PathContainer path) {
		for (RateLimitRule rule : this.rules) {
			if (rule.matches(method, path)) {
				return rule;
			}
		}
		return null;
	}

	/**
	 * @param rule a rule
	 * @return its limiter, as configured now
	 */
	RateLimiter limiter(RateLimitRule rule) {
		return this.registry.getObject().get(rule.limiter());
	}

	/**
	 * Adds the success headers of an allowed decision, if they are on: {@code RateLimit-Policy}, and
	 * {@code RateLimit} unless the failure policy decided. Added, not set: a request that passes a rule and a
	 * {@code @RateLimited} method carries both limiters' fields.
	 * @param header adds a header value
	 * @param limiter the limiter
	 * @param decision its allowed decision
	 */
	void addSuccessHeaders(BiConsumer<String, String> header, RateLimiter limiter, RateLimitDecision decision) {
		if (this.headersOnSuccess) {
			addHeaders(header, limiter, decision);
		}
	}

	static void addHeaders(BiConsumer<String, String> header, RateLimiter limiter, RateLimitDecision decision) {
		addHeaders(header, limiter.name(), limiter.spec(), decision);
	}

	/**
	 * Adds {@code RateLimit-Policy}, and {@code RateLimit} for a decision of Redis, as
	 * {@link RateLimitExceptionHandler} writes them.
	 * @param header receives each header's name and value
	 * @param name the limiter's name
	 * @param spec its spec
	 * @param decision the decision
	 */
	static void addHeaders(BiConsumer<String, String> header, String name, RateLimitSpec spec,
			RateLimitDecision decision) {
		header.accept(RateLimitExceptionHandler.POLICY_HEADER, RateLimitExceptionHandler.policy(name, spec));
		if (!decision.fromFailurePolicy()) {
			header.accept(RateLimitExceptionHandler.RATE_LIMIT_HEADER,
					RateLimitExceptionHandler.rateLimit(name, decision));
		}
	}

	/**
	 * The answer to a rejected request: the same as {@link RateLimitExceptionHandler}'s.
	 * @param limiter the limiter
	 * @param decision its rejection
	 * @param path the request's path, the problem's {@code instance} (as Spring sets it for the handler's answer)
	 * @return the headers (with {@code Content-Type: application/problem+json}) and the JSON body
	 */
	Rejection reject(RateLimiter limiter, RateLimitDecision decision, String path) {
		ResponseEntity<ProblemDetail> response = RateLimitExceptionHandler.tooManyRequests(
				new RateLimitExceededException(limiter.name(), limiter.spec(), decision), this.rateLimitHeaders);
		ProblemDetail problem = response.getBody();
		Map<String, Object> body = new LinkedHashMap<>();
		if (problem != null) {
			if (problem.getType() != null) {
				body.put("type", problem.getType().toString());
			}
			body.put("title", problem.getTitle());
			body.put("status", problem.getStatus());
			body.put("detail", problem.getDetail());
			body.put("instance", path);
			Map<String, Object> properties = problem.getProperties();
			if (properties != null) {
				body.putAll(properties);
			}
		}
		HttpHeaders headers = new HttpHeaders();
		headers.addAll(response.getHeaders());
		headers.set(HttpHeaders.CONTENT_TYPE, "application/problem+json");
		return new Rejection(headers, json.writeValueAsBytes(body));
	}

	/**
	 * A 429 answer.
	 * @param headers its headers
	 * @param body its problem detail as JSON
	 */
	record Rejection(HttpHeaders headers, byte[] body) {
	}

}
