package io.rediskit.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

import io.rediskit.autoconfigure.support.SafeSpel;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

/**
 * What a {@link RateLimitRule} counts a request under, parsed from the rule's {@code key}: {@code ip},
 * {@code header:<Name>}, {@code principal}, {@code session}, or a SpEL expression over {@code #request} (a
 * {@link RuleRequest}, read as {@link SafeSpel} allows). A request that has no value for it (no such header, no principal, no session, an
 * expression that yields {@code null} or fails on this request's data) is counted under {@link #MISSING}, one
 * count shared by all such requests.
 */
sealed interface RequestKey {

	/**
	 * The key of requests without a value: the empty string, which no present value is (an empty header counts as
	 * absent), and which is also the key of a {@code @RateLimited} method without a key expression.
	 */
	String MISSING = "";

	/** The client address, as the server (and {@code server.forward-headers-strategy}) resolved it. */
	record Ip() implements RequestKey {
	}

	/**
	 * A request header's first value.
	 * @param name the header's name
	 */
	record Header(String name) implements RequestKey {
	}

	/** The authenticated principal's name. */
	record Principal() implements RequestKey {
	}

	/** The id of the request's existing HTTP session; none is created. */
	record Session() implements RequestKey {
	}

	/**
	 * A SpEL expression over {@code #request}, evaluated as data like the key of an annotation.
	 * @param source the expression as configured
	 * @param expression the parsed expression
	 */
	record Spel(String source, Expression expression) implements RequestKey {

		private static final Log logger = LogFactory.getLog(RequestKey.class);

		private static final ThrottledLog failures = new ThrottledLog(logger, Duration.ofSeconds(10),
				"A rate-limit rule's key expression failed on a request");

		/**
		 * @param request the request
		 * @return the value as text, or {@link #MISSING} when the expression yields {@code null} or fails on this
		 * request's data (logged at most once per 10 seconds, without the request's data)
		 */
		String evaluate(RuleRequest request) {
			SimpleEvaluationContext context = SafeSpel.context();
			context.setVariable("request", request);
			Object value;
			try {
				value = this.expression.getValue(context);
			}
			// A header's text can make a method of the expression throw (substring, for example): that request
			// has no value, it is not a server error.
			catch (RuntimeException ex) {
				failures.warn(ex, "counting the request under the shared key of '" + this.source + "'");
				return MISSING;
			}
			return (value != null) ? value.toString() : MISSING;
		}

	}

	/**
	 * Parses a rule's key.
	 * @param key the configured key
	 * @return the key source
	 * @throws IllegalArgumentException saying what is wrong, without the property's name
	 */
	static RequestKey parse(String key) {
		String source = key.strip();
		switch (source) {
			case "ip":
				return new Ip();
			case "principal":
				return new Principal();
			case "session":
				return new Session();
			default:
				break;
		}
		if (source.startsWith("header:")) {
			String name = source.substring("header:".length()).strip();
			if (name.isEmpty() || !name.chars().allMatch(RequestKey::isTokenChar)) {
				throw new IllegalArgumentException("'" + key + "' names no valid header: use header:<Name>, such as"
						+ " header:X-Api-Key");
			}
			return new Header(name);
		}
		if (!source.startsWith("#")) {
			throw new IllegalArgumentException("'" + key + "' is no key source: use ip, header:<Name>, principal,"
					+ " session, or a SpEL expression over #request such as #request.header('X-Tenant')");
		}
		Expression expression;
		try {
			expression = SafeSpel.parse(source);
		}
		catch (ParseException ex) {
			throw new IllegalArgumentException("'" + key + "' does not parse: " + ex.getMessage(), ex);
		}
		SafeSpel.Inspection inspection = SafeSpel.inspect(expression);
		if (inspection.unsupported() != null) {
			throw new IllegalArgumentException("'" + key + "' uses " + inspection.unsupported()
					+ ", which key expressions do not offer: read the request through #request");
		}
		Set<String> variables = new LinkedHashSet<>(inspection.variables());
		variables.removeAll(Set.of("#request", "#this", "#root"));
		if (!variables.isEmpty()) {
			throw new IllegalArgumentException("'" + key + "' names " + String.join(", ", variables)
					+ ": the only variable is #request (method, path, ip, header('Name'), param('name'))");
		}
		return new Spel(source, expression);
	}

	// RFC 9110 token characters, which header names consist of.
	private static boolean isTokenChar(int c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
				|| "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
	}

}
