package io.rediskit.support;

import java.util.Objects;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The two rules for the names of primitives, one for each kind of name, so that every entry point checks a name of
 * its kind the same way and no error repeats the name it refused (a name may be data the application received).
 * <ul>
 * <li><b>Configured names</b> ({@link #requireValid}): the names a registry keeps a spec for (a rate limiter, a
 * queue, a filter, a cache, ...), whether configured or created in code, since the configuration and code meet on
 * them, and the names of annotations and leader roles: 1 to 64 ASCII letters, digits, {@code -} or {@code _},
 * starting with a letter or digit. Such a name is one segment of a property path
 * ({@code redis-kit.rate-limit.limiters.<name>}), a metric tag and part of a key, so neither {@code .} (which
 * splits property paths) nor {@code :} (which separates key parts) may appear.</li>
 * <li><b>Names given in code</b> ({@link #requireData}): the names of primitives no property configures (a lock of
 * any member of the family, a semaphore, a latch, a queue message's group), which may be data such as an order id or
 * an e-mail address: 1 to {@value #MAX_DATA_LENGTH} characters, none of them a control character. Any other
 * character is data: {@link KeyNaming} encodes <code>{</code>, <code>}</code>, {@code %} and {@code ~}, so a name
 * keeps its keys in one hash slot and two names never share a key. The bound keeps metric tags, lists (the actuator
 * endpoints, the console) and heartbeats small; a longer value belongs in the {@code key} of a two-argument
 * {@code get...(group, key)}, which is data of any length.</li>
 * </ul>
 */
public final class Names {

	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");

	/** What the rule of configured names allows, for messages. */
	public static final String RULE = "1 to 64 letters, digits, '-' or '_', starting with a letter or digit";

	/** Longest name given in code, in characters. */
	public static final int MAX_DATA_LENGTH = 128;

	/** What the rule of names given in code allows, for messages. */
	public static final String DATA_RULE = "1 to " + MAX_DATA_LENGTH + " characters without control characters";

	private Names() {
	}

	/**
	 * @param name a candidate name
	 * @return whether it follows the rule of configured names
	 */
	public static boolean isValid(String name) {
		return NAME.matcher(name).matches();
	}

	/**
	 * Checks a configured name, or one created in code for a registry that keeps specs by name.
	 * @param kind what is named, for the message, such as {@code Rate limiter}
	 * @param name the name
	 * @return the name
	 * @throws IllegalArgumentException if the name breaks the rule; the message does not repeat the name
	 */
	public static String requireValid(String kind, String name) {
		Objects.requireNonNull(name, () -> kind + " name must not be null");
		if (!isValid(name)) {
			throw new IllegalArgumentException(kind + " name must be " + RULE + " (no '.', ':' or space)"
					+ describe(name));
		}
		return name;
	}

	/**
	 * Checks a name given in code that no property configures and that may be data.
	 * @param kind what is named, for the message, such as {@code Semaphore}
	 * @param name the name
	 * @return the name
	 * @throws IllegalArgumentException if the name is empty, longer than {@value #MAX_DATA_LENGTH} characters or
	 * holds a control character; the message says which and where, and does not repeat the name
	 */
	public static String requireData(String kind, String name) {
		Objects.requireNonNull(name, () -> kind + " name must not be null");
		String problem = dataProblem(kind, name);
		if (problem != null) {
			throw new IllegalArgumentException(problem);
		}
		return name;
	}

	/**
	 * What is wrong with a name given in code, for a check that reports it its own way (a spec's).
	 * @param kind what is named, for the message, such as {@code Group}
	 * @param name the name
	 * @return the reason, without the name, or {@code null} when the name follows the rule
	 */
	public static @Nullable String dataProblem(String kind, String name) {
		if (name.isEmpty() || name.length() > MAX_DATA_LENGTH) {
			return kind + " name must be " + DATA_RULE + ", was " + name.length() + " characters long";
		}
		for (int i = 0; i < name.length(); i++) {
			if (Character.isISOControl(name.charAt(i))) {
				return kind + " name must be " + DATA_RULE + ", had one at index " + i;
			}
		}
		return null;
	}

	/** What a person may be told of a refused name: its length and its first character outside the rule. */
	private static String describe(String name) {
		if (name.isEmpty()) {
			return ", was empty";
		}
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			boolean allowed = (c < 128) && (Character.isLetterOrDigit(c) || ((c == '-' || c == '_') && i > 0));
			if (!allowed) {
				return ", was " + name.length() + " characters long with one outside the rule at index " + i;
			}
		}
		return ", was " + name.length() + " characters long";
	}

}
