package io.rediskit.autoconfigure.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

import io.rediskit.autoconfigure.support.InvalidPropertiesException.Violation;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.Names;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.validation.Errors;

/**
 * Validation shared by the maps of named entries ({@code redis-kit.queue.queues.<name>},
 * {@code redis-kit.bloom.filters.<name>}, ...): the entry's name by {@link Names}, then its values by the core spec
 * they build, every message naming the property. Where a group's top-level settings are the defaults of its entries
 * ({@code redis-kit.cache.ttl} beside {@code redis-kit.cache.caches.<name>.ttl}), each level is checked alone when
 * bound (they bind in no fixed order) and the combination by {@link #specs} when the entry point is built.
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

	/**
	 * The specs of a group's entries, each its own settings over the group's defaults. What only the combination
	 * rejects fails startup naming the property the value came from (the entry's own, or the group's default it
	 * inherits, when the entry leaves the setting unset), its value and the entry.
	 * @param <E> the entries' properties
	 * @param <S> the spec
	 * @param group the group's properties: its defaults have the names of the entries' settings
	 * @param groupPrefix the group's property with a trailing dot, such as {@code redis-kit.queue.}
	 * @param map the map's property within the group, such as {@code queues}
	 * @param kind what an entry is, for the message, such as {@code queue}
	 * @param entries the entries by name
	 * @param toSpec an entry's spec over the group's defaults
	 * @return the specs by name, in the entries' order
	 * @throws InvalidPropertiesException naming every property at fault
	 */
	public static <E, S> Map<String, S> specs(Object group, String groupPrefix, String map, String kind,
			Map<String, E> entries, Function<E, S> toSpec) {
		return specs(group, groupPrefix, map, kind, entries, toSpec, (entry, failure) -> null);
	}

	/**
	 * As {@link #specs(Object, String, String, String, Map, Function)}, with a note on a failure, such as the
	 * inherited setting that made the entry's own value wrong.
	 * @param <E> the entries' properties
	 * @param <S> the spec
	 * @param group the group's properties: its defaults have the names of the entries' settings
	 * @param groupPrefix the group's property with a trailing dot, such as {@code redis-kit.queue.}
	 * @param map the map's property within the group, such as {@code queues}
	 * @param kind what an entry is, for the message, such as {@code queue}
	 * @param entries the entries by name
	 * @param toSpec an entry's spec over the group's defaults
	 * @param note what to add to the reason of a failure of an entry, or {@code null}
	 * @return the specs by name, in the entries' order
	 * @throws InvalidPropertiesException naming every property at fault
	 */
	public static <E, S> Map<String, S> specs(Object group, String groupPrefix, String map, String kind,
			Map<String, E> entries, Function<E, S> toSpec, BiFunction<E, InvalidSpecException, @Nullable String> note) {
		Map<String, S> specs = new LinkedHashMap<>();
		List<Violation> violations = new ArrayList<>();
		entries.forEach((name, entry) -> {
			try {
				specs.put(name, toSpec.apply(entry));
			}
			catch (InvalidSpecException ex) {
				violations.add(violation(group, groupPrefix, groupPrefix + map + "." + name + ".", kind + " '" + name
						+ "'", entry, ex, note.apply(entry, ex)));
			}
		});
		if (!violations.isEmpty()) {
			throw new InvalidPropertiesException(violations);
		}
		return specs;
	}

	private static Violation violation(Object group, String groupPrefix, String entryPrefix, String entryName,
			Object entry, InvalidSpecException failure, @Nullable String note) {
		String component = failure.getComponent();
		BeanWrapper own = new BeanWrapperImpl(entry);
		boolean inherited = !own.isReadableProperty(component) || own.getPropertyValue(component) == null;
		Object value = inherited ? new BeanWrapperImpl(group).getPropertyValue(component)
				: own.getPropertyValue(component);
		String property = (inherited ? groupPrefix : entryPrefix) + SpecErrors.propertyName(component);
		String valueText = (value instanceof Enum<?> constant)
				? constant.name().toLowerCase(Locale.ROOT).replace('_', '-')
				: (value instanceof Duration duration) ? Durations.format(duration) : String.valueOf(value);
		return new Violation(property, valueText, property + " " + Durations.inText(failure.getReason()) + " ("
				+ entryName + (inherited ? ", which inherits it" : "") + ((note != null) ? ", " + note : "") + ")");
	}

}
