package io.rediskit.autoconfigure.support;

import java.util.Locale;

import io.rediskit.support.InvalidSpecException;

import org.springframework.validation.Errors;

/**
 * Reports a core spec's {@link InvalidSpecException} against the property it was bound from, so that the
 * startup failure names the property and its origin while the rule itself stays in the spec.
 */
public final class SpecErrors {

	private SpecErrors() {
	}

	/**
	 * Rejects the field of the component at fault.
	 * @param errors the binder's errors of the properties object
	 * @param prefix the properties object's prefix with a trailing dot, such as {@code redis-kit.lock.}
	 * @param failure what the spec rejected; its component is the field's name
	 */
	public static void reject(Errors errors, String prefix, InvalidSpecException failure) {
		String field = failure.getComponent();
		// The message names the property itself: the report shows the Java field name for YAML sources.
		errors.rejectValue(field, "invalid", prefix + kebabCase(field) + " " + Durations.inText(failure.getReason()));
	}

	/**
	 * @param component a spec's component as its accessor is named, dotted into nested groups, such as
	 * {@code nearCache.maxEntries}
	 * @return the property as YAML names it, such as {@code near-cache.max-entries}
	 */
	public static String propertyName(String component) {
		return kebabCase(component);
	}

	private static String kebabCase(String field) {
		return field.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
	}

}
