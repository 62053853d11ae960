package io.rediskit.autoconfigure.ratelimit;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.rediskit.autoconfigure.ratelimit.RateLimitProperties.Rule;
import io.rediskit.autoconfigure.support.PropertyChecks;
import io.rediskit.support.Names;

import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

/**
 * One entry of {@code redis-kit.rate-limit.web.rules}, parsed: the path patterns and methods it matches, and the
 * limiter, key and permits it applies. Built from properties that {@link #of} checks.
 *
 * @param property the rule's property, such as {@code redis-kit.rate-limit.web.rules[0]}, for messages
 * @param patterns the path patterns, any of which matches
 * @param methods the upper-case methods it matches; empty for all
 * @param limiter the limiter's name
 * @param key what requests are counted under
 * @param permits permits per request
 */
record RateLimitRule(String property, List<PathPattern> patterns, Set<String> methods, String limiter,
		RequestKey key, int permits) {

	private static final String PREFIX = "redis-kit.rate-limit.web.rules";

	private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS",
			"TRACE");

	/**
	 * @param method the request's method
	 * @param path the request's path within the application
	 * @return whether the rule applies to the request
	 */
	boolean matches(String method, PathContainer path) {
		if (!this.methods.isEmpty() && !this.methods.contains(method)) {
			return false;
		}
		for (PathPattern pattern : this.patterns) {
			if (pattern.matches(path)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Parses the configured rules, in order.
	 * @param rules the rules as bound
	 * @return the parsed rules
	 * @throws io.rediskit.autoconfigure.support.InvalidPropertiesException naming every property at fault
	 */
	static List<RateLimitRule> of(List<Rule> rules) {
		PropertyChecks checks = new PropertyChecks();
		for (int i = 0; i < rules.size(); i++) {
			check(rules.get(i), PREFIX + "[" + i + "]", checks);
		}
		checks.throwIfInvalid();
		List<RateLimitRule> parsed = new ArrayList<>(rules.size());
		for (int i = 0; i < rules.size(); i++) {
			Rule rule = rules.get(i);
			String property = PREFIX + "[" + i + "]";
			String limiter = rule.getLimiter();
			String key = rule.getKey();
			if (limiter == null || key == null) {
				throw new IllegalArgumentException(property + " needs a limiter and a key");
			}
			List<PathPattern> patterns = rule.getPath()
				.stream()
				.map((path) -> PathPatternParser.defaultInstance.parse(path.strip()))
				.toList();
			Set<String> methods = Set.copyOf(rule.getMethods()
				.stream()
				.map((method) -> method.strip().toUpperCase(Locale.ROOT))
				.toList());
			try {
				parsed.add(new RateLimitRule(property, patterns, methods, limiter, RequestKey.parse(key),
						rule.getPermits()));
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(property + ".key " + ex.getMessage(), ex);
			}
		}
		return List.copyOf(parsed);
	}

	/**
	 * Checks a rule as bound, against its property, such as {@code redis-kit.rate-limit.web.rules[2]}: the fields it
	 * needs, the syntax of its paths, methods, limiter name and key. Whether the limiter exists is known only once the
	 * application has started (limiters can be created in code): {@link RateLimitRules} checks that then.
	 * @param rule the rule
	 * @param rulePrefix the rule's property, such as {@code redis-kit.rate-limit.web.rules[2]}
	 * @param checks where a fault is recorded
	 */
	private static void check(Rule rule, String rulePrefix, PropertyChecks checks) {
		String property = rulePrefix + ".";
		if (rule.getPath().isEmpty()) {
			checks.reject(property + "path", rule.getPath(), property + "path is required, such as /api/**");
		}
		for (String path : rule.getPath()) {
			try {
				PathPatternParser.defaultInstance.parse(path.strip());
			}
			catch (PatternParseException ex) {
				checks.reject(property + "path", rule.getPath(), property + "path '" + path + "' is no path pattern: "
						+ ex.toDetailedString().replace('\n', ' '));
			}
		}
		for (String method : rule.getMethods()) {
			if (!METHODS.contains(method.strip().toUpperCase(Locale.ROOT))) {
				checks.reject(property + "methods", rule.getMethods(), property + "methods has '" + method
						+ "', which is not one of " + String.join(", ", METHODS.stream().sorted().toList()));
			}
		}
		String limiter = rule.getLimiter();
		if (limiter == null || limiter.isBlank()) {
			checks.reject(property + "limiter", limiter, property + "limiter is required: the name of a limiter of "
					+ "redis-kit.rate-limit.limiters");
		}
		else if (!Names.isValid(limiter)) {
			checks.reject(property + "limiter", limiter, property + "limiter '" + limiter
					+ "' is no limiter name: names are " + Names.RULE);
		}
		String key = rule.getKey();
		if (key == null || key.isBlank()) {
			checks.reject(property + "key", key, property + "key is required: ip, header:<Name>, principal, "
					+ "session or a SpEL expression over #request (quote it in YAML: a leading # starts a comment)");
		}
		else {
			try {
				RequestKey.parse(key);
			}
			catch (IllegalArgumentException ex) {
				checks.reject(property + "key", key, property + "key " + ex.getMessage());
			}
		}
		if (rule.getPermits() < 1) {
			checks.reject(property + "permits", rule.getPermits(),
					property + "permits must be at least 1, was " + rule.getPermits());
		}
	}

}
