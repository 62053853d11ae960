package io.rediskit.keys;

import java.util.Objects;

/**
 * Builds {@code SCAN MATCH} patterns from user data: a fragment is escaped so that the glob characters it holds
 * ({@code * ? [ ] \}) match only themselves and cannot widen the pattern.
 * <pre>{@code
 * String pattern = "session:" + KeyPatterns.escape(userId) + ":*";
 * }</pre>
 */
public final class KeyPatterns {

	private KeyPatterns() {
	}

	/**
	 * @param fragment any string, such as a user id
	 * @return the fragment with every glob character escaped by a backslash
	 */
	public static String escape(String fragment) {
		Objects.requireNonNull(fragment, "fragment must not be null");
		StringBuilder escaped = new StringBuilder(fragment.length() + 8);
		for (int i = 0; i < fragment.length(); i++) {
			char c = fragment.charAt(i);
			if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
				escaped.append('\\');
			}
			escaped.append(c);
		}
		return escaped.toString();
	}

	/**
	 * @param prefix a literal key prefix, escaped
	 * @return a pattern matching every key that starts with it
	 */
	public static String startingWith(String prefix) {
		return escape(prefix) + "*";
	}

}
