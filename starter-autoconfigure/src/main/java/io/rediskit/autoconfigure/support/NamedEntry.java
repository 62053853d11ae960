package io.rediskit.autoconfigure.support;

import java.util.function.Supplier;

import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.Names;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.validation.Errors;

/**
 * Validation shared by the maps of named entries ({@code redis-kit.queue.queues.<name>},
 * {@code redis-kit.bloom.filters.<name>}, ...): the entry's name by {@link Names}, then its values by the core spec
 * they build, every message naming the property.
 */
public final class NamedEntry {

	private NamedEntry() {
	}

	/**
	 * The property prefix of the entry being validated, after checking its name.
	 * @param errors the binder's errors of the entry
	 * @param mapProperty the map's property with a trailing dot, such as {@code redis-kit.queue.queues.}
	 * @param kind what an entry is, for the message, such as {@code queue}
	 * @return the entry's property with a trailing dot, such as {@code redis-kit.queue.queues.emails.}, or
	 * {@code null} when the name was rejected
	 */
	public static @Nullable String property(Errors errors, String mapProperty, String kind) {
		ConfigurationPropertyName bound = ConfigurationPropertyName.ofIfValid(errors.getObjectName());
		String name = (bound != null && !bound.isEmpty()) ? bound.getLastElement(Form.ORIGINAL) : errors.getObjectName();
		// Messages name the property themselves: the report names a field only when it can trace its source.
		String property = ((bound != null) ? bound.toString() : mapProperty + name) + ".";
		if (!Names.isValid(name)) {
			errors.reject("name", property.substring(0, property.length() - 1) + " has an invalid " + kind + " name '"
					+ name + "': names are " + Names.RULE);
			return null;
		}
		return property;
	}

	/**
	 * Builds the entry's spec and reports what its constructor rejects against the property.
	 * @param errors the binder's errors of the entry
	 * @param property the entry's property with a trailing dot, from {@link #property}
	 * @param toSpec builds the core spec
	 */
	public static void checkSpec(Errors errors, String property, Supplier<?> toSpec) {
		try {
			toSpec.get();
		}
		catch (InvalidSpecException ex) {
			SpecErrors.reject(errors, property, ex);
		}
	}

}
