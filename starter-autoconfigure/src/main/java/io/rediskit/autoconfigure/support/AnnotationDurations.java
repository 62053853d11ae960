package io.rediskit.autoconfigure.support;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.PropertyResolver;

/**
 * Reads the duration attributes of redis-kit annotations: {@code "2s"}, {@code "500ms"}, ISO-8601 such as
 * {@code "PT2S"}, or a {@code ${placeholder}} that resolves to one of these. Results are cached per text,
 * which bounds the cache by the annotations.
 */
public final class AnnotationDurations {

	private final PropertyResolver placeholders;

	private final Map<String, Duration> parsed = new ConcurrentHashMap<>();

	/**
	 * @param placeholders resolves {@code ${...}} placeholders, usually the application's environment
	 */
	public AnnotationDurations(PropertyResolver placeholders) {
		this.placeholders = placeholders;
	}

	/**
	 * Parses a duration attribute.
	 * @param text the attribute's text; not empty
	 * @param attribute the attribute name, for error messages
	 * @param annotation describes the annotation, for error messages
	 * @param method the annotated method, for error messages
	 * @return the duration, zero or positive
	 * @throws IllegalArgumentException naming the attribute and method when the text is not a duration or is
	 * negative
	 */
	public Duration parse(String text, String attribute, String annotation, Method method) {
		return this.parsed.computeIfAbsent(text, (key) -> {
			String resolved;
			Duration duration;
			try {
				resolved = this.placeholders.resolveRequiredPlaceholders(text);
				duration = DurationStyle.detectAndParse(resolved.trim());
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(attribute + " '" + text + "' of " + annotation + " on "
						+ MethodKeyEvaluator.describe(method) + " is not a duration such as \"2s\", \"500ms\" or \"PT2S\": "
						+ ex.getMessage(), ex);
			}
			if (duration.isNegative()) {
				throw new IllegalArgumentException(attribute + " '" + text + "' of " + annotation + " on "
						+ MethodKeyEvaluator.describe(method) + " must not be negative");
			}
			return duration;
		});
	}

	/**
	 * Parses a duration attribute that has an upper bound.
	 * @param text the attribute's text; not empty
	 * @param attribute the attribute name, for error messages
	 * @param annotation describes the annotation, for error messages
	 * @param method the annotated method, for error messages
	 * @param max the longest duration accepted
	 * @return the duration, from zero to {@code max}
	 * @throws IllegalArgumentException naming the attribute and method when the text is not a duration, is
	 * negative or is longer than {@code max}
	 */
	public Duration parse(String text, String attribute, String annotation, Method method, Duration max) {
		Duration duration = parse(text, attribute, annotation, method);
		if (duration.compareTo(max) > 0) {
			throw new IllegalArgumentException(attribute + " '" + text + "' of " + annotation + " on "
					+ MethodKeyEvaluator.describe(method) + " must be at most " + max.toDays() + " days, was " + Durations.format(duration));
		}
		return duration;
	}

}
