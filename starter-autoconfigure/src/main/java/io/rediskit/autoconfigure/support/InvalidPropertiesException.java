package io.rediskit.autoconfigure.support;

import java.io.Serializable;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Properties that bound and passed their own validation, but cannot work with the rest of the application: a
 * route rule naming a limiter that does not exist once the singletons do, or asking it for more permits than it
 * can ever grant. Thrown while the application starts and reported by {@link InvalidPropertiesFailureAnalyzer}
 * like a binding failure: each property, its value, where it was set, and why.
 */
public class InvalidPropertiesException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final List<Violation> violations;

	/**
	 * @param violations one per property at fault, in the order of the configuration
	 */
	public InvalidPropertiesException(List<Violation> violations) {
		super("Invalid redis-kit " + ((violations.size() == 1) ? "property" : "properties") + ":\n - "
				+ String.join("\n - ", violations.stream().map(Violation::reason).toList()));
		this.violations = List.copyOf(violations);
	}

	/** @return one per property at fault */
	public List<Violation> getViolations() {
		return this.violations;
	}

	/**
	 * One property at fault.
	 *
	 * @param property the property as written in YAML, such as {@code redis-kit.rate-limit.web.rules[0].limiter}
	 * @param value its value, as bound; {@code null} when it must not be shown (a URL that may carry a password)
	 * @param reason a sentence that starts with the property and says what it allows
	 */
	public record Violation(String property, @Nullable String value, String reason) implements Serializable {
	}

}
