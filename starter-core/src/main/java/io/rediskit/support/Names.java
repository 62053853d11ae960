package io.rediskit.support;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The rule for the names of configured primitives (a rate limiter, later a queue or a filter): 1 to 64 ASCII
 * letters, digits, {@code -} or {@code _}, starting with a letter or digit. Such a name is one segment of a
 * property path ({@code redis-kit.rate-limit.limiters.<name>}), a metric tag and part of a key, so neither
 * {@code .} (which splits property paths) nor {@code :} (which separates key parts) may appear.
 * Lock names are data, not configured names, and are not bound by this rule.
 */
public final class Names {

	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");

	/** What the rule allows, for messages. */
	public static final String RULE = "1 to 64 letters, digits, '-' or '_', starting with a letter or digit";

	private Names() {
	}

	/**
	 * @param name a candidate name
	 * @return whether it follows the rule
	 */
	public static boolean isValid(String name) {
		return NAME.matcher(name).matches();
	}

	/**
	 * Checks a name.
	 * @param kind what is named, for the message, such as {@code Rate limiter}
	 * @param name the name
	 * @return the name
	 * @throws IllegalArgumentException if the name breaks the rule
	 */
	public static String requireValid(String kind, String name) {
		Objects.requireNonNull(name, () -> kind + " name must not be null");
		if (!isValid(name)) {
			throw new IllegalArgumentException(kind + " name must be " + RULE + ", was '" + name + "'");
		}
		return name;
	}

}
