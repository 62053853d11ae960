package io.rediskit.autoconfigure.support;

import java.beans.PropertyDescriptor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.rediskit.autoconfigure.support.InvalidPropertiesException.Violation;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.Names;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;

/**
 * Turns bound properties into core specs and collects what is wrong with them, each fault against the property it
 * was bound from. The properties classes are plain data, as Spring Boot's own: the rules live in the spec
 * constructors (which throw {@link InvalidSpecException} naming the component), the conversion in each area's
 * auto-configuration, and this class reports a rejected component as its property ({@code nearCache.maxEntries}
 * as {@code redis-kit.cache.near-cache.max-entries}), with its value. {@link #throwIfInvalid()} then fails startup
 * with every fault found, reported by {@link InvalidPropertiesFailureAnalyzer} with each property's origin.
 *
 * <pre>{@code
 * PropertyChecks checks = new PropertyChecks();
 * Map<String, IdGeneratorSpec> specs = checks.entries(properties, "redis-kit.id.", "generators", "id generator",
 *         properties.getGenerators(), (generator) -> new IdGeneratorSpec(generator.getBlockSize()));
 * checks.throwIfInvalid();
 * }</pre>
 *
 * Not thread-safe: one instance per check, used by one thread while the application starts.
 */
public final class PropertyChecks {

	private final List<Violation> violations = new ArrayList<>();

	/**
	 * Builds a spec from a group of settings that inherits nothing.
	 * @param <S> the spec
	 * @param properties the settings, whose properties have the names of the spec's components
	 * @param prefix their property with a trailing dot, such as {@code redis-kit.lock.}
	 * @param toSpec builds the spec
	 * @return the spec, or {@code null} when its constructor rejected a value (recorded)
	 */
	public <S> @Nullable S spec(Object properties, String prefix, Supplier<S> toSpec) {
		try {
			return toSpec.get();
		}
		catch (InvalidSpecException ex) {
			this.violations.add(violation(properties, properties, prefix, prefix, null, ex, null));
			return null;
		}
	}

	/**
	 * The specs of a map of named entries ({@code redis-kit.queue.queues.<name>}), each entry's name checked by
	 * {@link Names} and its settings taken over the group's defaults. A fault is reported against the property the
	 * value came from: the entry's own, or the group's default it inherits when the entry leaves it unset.
	 * @param <E> the entries' properties
	 * @param <S> the spec
	 * @param group the group's properties: its defaults have the names of the entries' settings
	 * @param groupPrefix the group's property with a trailing dot, such as {@code redis-kit.queue.}
	 * @param map the map's property within the group, such as {@code queues}
	 * @param kind what an entry is, for the message, such as {@code queue}
	 * @param entries the entries by name
	 * @param toSpec an entry's spec over the group's defaults
	 * @return the specs of the valid entries by name, in the entries' order
	 */
	public <E, S> Map<String, S> entries(Object group, String groupPrefix, String map, String kind,
			Map<String, E> entries, Function<E, S> toSpec) {
		return entries(group, groupPrefix, map, kind, entries, toSpec, (entry, failure) -> null);
	}

	/**
	 * As {@link #entries(Object, String, String, String, Map, Function)}, with a note on a fault, such as the
	 * inherited setting that made the entry's own value wrong.
	 * @param <E> the entries' properties
	 * @param <S> the spec
	 * @param group the group's properties: its defaults have the names of the entries' settings
	 * @param groupPrefix the group's property with a trailing dot, such as {@code redis-kit.queue.}
	 * @param map the map's property within the group, such as {@code queues}
	 * @param kind what an entry is, for the message, such as {@code queue}
	 * @param entries the entries by name
	 * @param toSpec an entry's spec over the group's defaults
	 * @param note what to add to the reason of a fault of an entry, or {@code null}
	 * @return the specs of the valid entries by name, in the entries' order
	 */
	public <E, S> Map<String, S> entries(Object group, String groupPrefix, String map, String kind,
			Map<String, E> entries, Function<E, S> toSpec, BiFunction<E, InvalidSpecException, @Nullable String> note) {
		Map<String, S> specs = new LinkedHashMap<>();
		entries.forEach((name, entry) -> {
			// As the binder names a map's entry: a key that is not one lower-case dashed element in brackets.
			String key = name.matches("[a-z0-9][a-z0-9-]*") ? "." + name : "[" + name + "]";
			String property = groupPrefix + map + key;
			if (!Names.isValid(name)) {
				reject(property, name, property + " has an invalid " + kind + " name '" + name + "': names are "
						+ Names.RULE);
				return;
			}
			String entryPrefix = property + ".";
			try {
				specs.put(name, toSpec.apply(entry));
			}
			catch (InvalidSpecException ex) {
				this.violations.add(violation(group, entry, groupPrefix, entryPrefix, kind + " '" + name + "'", ex,
						note.apply(entry, ex)));
			}
		});
		return specs;
	}

	/**
	 * Records a fault a spec cannot see (a value that names another bean, a path pattern).
	 * @param property the property as written in YAML, such as {@code redis-kit.console.path}
	 * @param value its value, as bound
	 * @param reason a sentence that starts with the property and says what it allows
	 */
	public void reject(String property, @Nullable Object value, String reason) {
		this.violations.add(new Violation(property, text(value), reason));
	}

	/**
	 * Records a fault without its value: the report shows neither the bound value nor the one written (a URL that
	 * may carry a password).
	 * @param property the property as written in YAML, such as {@code redis-kit.lock.redlock.nodes[1]}
	 * @param reason a sentence that starts with the property and says what it allows
	 */
	public void rejectHidden(String property, String reason) {
		this.violations.add(new Violation(property, null, reason));
	}

	/**
	 * @return whether a fault was found so far
	 */
	public boolean hasFaults() {
		return !this.violations.isEmpty();
	}

	/**
	 * Fails startup when a fault was found.
	 * @throws InvalidPropertiesException naming every property at fault
	 */
	public void throwIfInvalid() {
		if (!this.violations.isEmpty()) {
			throw new InvalidPropertiesException(this.violations);
		}
	}

	/**
	 * @param component a spec's component as its accessor is named, dotted into nested groups, such as
	 * {@code nearCache.maxEntries}
	 * @return the property as YAML names it, such as {@code near-cache.max-entries}
	 */
	public static String propertyName(String component) {
		return component.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
	}

	/**
	 * @param value a bound value
	 * @return the value as YAML writes it: a duration as {@code 5s}, a constant as {@code fixed-window}, a list as
	 * {@code GET, POST}
	 */
	public static String text(@Nullable Object value) {
		if (value instanceof Collection<?> values) {
			return String.join(", ", values.stream().map(PropertyChecks::text).toList());
		}
		if (value instanceof Enum<?> constant) {
			return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
		}
		if (value instanceof Duration duration) {
			return Durations.format(duration);
		}
		return String.valueOf(value);
	}

	/**
	 * A spec names constants as code writes them ({@code SERVE_STALE}); the YAML that set them writes
	 * {@code serve-stale}. Rewrites, as whole words, the constants of the enum settings of the given properties.
	 */
	private static String constantsAsWritten(String reason, BeanWrapper... properties) {
		String written = reason;
		for (BeanWrapper wrapper : properties) {
			for (PropertyDescriptor setting : wrapper.getPropertyDescriptors()) {
				Class<?> type = setting.getPropertyType();
				if (type != null && type.isEnum()) {
					for (Object constant : type.getEnumConstants()) {
						written = written.replaceAll("\\b" + Pattern.quote(((Enum<?>) constant).name()) + "\\b",
								Matcher.quoteReplacement(text(constant)));
					}
				}
			}
		}
		return written;
	}

	private static Violation violation(Object group, Object entry, String groupPrefix, String entryPrefix,
			@Nullable String entryName, InvalidSpecException failure, @Nullable String note) {
		String component = failure.getComponent();
		BeanWrapper own = new BeanWrapperImpl(entry);
		BeanWrapper defaults = new BeanWrapperImpl(group);
		// Inherited: the entry leaves unset what the group has a default of.
		boolean inherited = entry != group && defaults.isReadableProperty(component)
				&& (!own.isReadableProperty(component) || own.getPropertyValue(component) == null);
		BeanWrapper source = inherited ? defaults : own;
		Object value = source.isReadableProperty(component) ? source.getPropertyValue(component) : null;
		String property = (inherited ? groupPrefix : entryPrefix) + propertyName(component);
		String reason = property + " " + constantsAsWritten(Durations.inText(failure.getReason()), own, defaults);
		if (entryName != null || note != null) {
			List<String> context = new ArrayList<>();
			if (entryName != null) {
				context.add(entryName + (inherited ? ", which inherits it" : ""));
			}
			if (note != null) {
				context.add(note);
			}
			reason += " (" + String.join(", ", context) + ")";
		}
		return new Violation(property, text(value), reason);
	}

}
